import path from 'node:path';
import { openEmbeddedStore, type Doc, type Filter } from '@mmp/platform';
import { percentile } from '../stats.js';

/**
 * The payments list and search as the payments store module asks them (count, then one
 * page newest first), timed at the store port in this process: the engine's own cost,
 * without HTTP, NATS or a busy machine's scheduling between the hops.
 */

/** The list's first and a deep page, and a search's: timed through the API and at the port. */
export type ListQuery = 'listFirst' | 'listDeep' | 'searchFirst' | 'searchDeep';

export type PortLatency = { p50: number; p99: number };
export type PortQueries = Record<ListQuery, PortLatency>;

const PAGE = 20;

async function time(count: number, query: () => Promise<unknown>): Promise<PortLatency> {
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
      await payments.count(filter);
      await payments.find(filter, { sort: { createdAt: -1, id: -1 }, skip, limit: PAGE + 1 });
    };
    const deep = Math.floor(size / 2 / PAGE) * PAGE;
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
