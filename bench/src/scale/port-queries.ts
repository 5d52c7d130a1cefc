import path from 'node:path';
import { openEmbeddedStore, type Doc, type Filter } from '@mmp/platform';
import { LIST_TOTAL_CAP } from '@mmp/protocol';
import { percentile } from '../stats.js';

/**
 * The payments list and search as the payments store module asks them (the total counted
 * no further than its cap, then one page newest first), timed at the store port in this
 * process: the engine's own cost, without HTTP, NATS or a busy machine's scheduling between
 * the hops.
 */

/** The list's first and deepest numbered page, and a search's: timed through the API and at the port. */
export type ListQuery = 'listFirst' | 'listDeep' | 'searchFirst' | 'searchDeep';

export type PortLatency = { p50: number; p99: number };
export type PortQueries = Record<ListQuery, PortLatency>;

export const PAGE = 20;

/**
 * The deepest page a numbered read may ask for: pages start within the LIST_TOTAL_CAP
 * payments the total counts (payments' list query), or within the data set when it is smaller.
 */
export function deepestPage(size: number): number {
  return Math.max(1, Math.ceil(Math.min(size, LIST_TOTAL_CAP) / PAGE));
}

/** The payments collection's indexes a list or a search reads, as its store module declares them. */
const LIST_INDEXES = [
  { fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } },
  { fields: { reference: 1, token: 1, payerPhone: 1, payerName: 1 }, text: true },
] as const;

async function time(count: number, query: () => Promise<unknown>): Promise<PortLatency> {
  // Once untimed: the first read after seeding brings the pages it needs into the cache.
  await query();
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await query();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(times, p) * 100) / 100;
  return { p50: at(50), p99: at(99) };
}

export async function measurePortQueries(
  dataDir: string,
  projectId: string,
  size: number,
  queries: number,
  searchQueries: number,
): Promise<PortQueries> {
  const store = await openEmbeddedStore({ dir: path.join(dataDir, 'payments') });
  try {
    const payments = store.collection<Doc>('payments');
    for (const index of LIST_INDEXES) await payments.ensureIndex(index);
    const scope: Filter = { $and: [{ projectId, livemode: false }] };
    const search: Filter = {
      $and: [
        { projectId, livemode: false },
        {
          $or: ['reference', 'token', 'payerPhone', 'payerName'].map((field) => ({
            [field]: { $contains: 'shopper' },
          })),
        },
      ],
    };
    const page = (filter: Filter, skip: number) => async () => {
      await payments.count(filter, { limit: LIST_TOTAL_CAP + 1 });
      await payments.find(filter, { sort: { createdAt: -1, id: -1 }, skip, limit: PAGE + 1 });
    };
    const deep = (deepestPage(size) - 1) * PAGE;
    return {
      listFirst: await time(queries, page(scope, 0)),
      listDeep: await time(queries, page(scope, deep)),
      searchFirst: await time(searchQueries, page(search, 0)),
      searchDeep: await time(searchQueries, page(search, deep)),
    };
  } finally {
    await store.close();
  }
}
