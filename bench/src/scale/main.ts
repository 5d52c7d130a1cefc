import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestSystem, eventually } from '@mmp/platform/testing';
import { readConfig } from '../config.js';
import { measure } from '../load.js';
import { peakRssBytes, rssBytes, withNatsServer } from '../proc.js';
import { table, writeResults } from '../report.js';
import { createPaymentScenario } from '../scenarios.js';
import { percentile } from '../stats.js';
import { createAccounts, type BenchAccounts } from '../setup.js';
import { benchEnv, buildServices, startProcesses, type ProcessSystem } from '../systems.js';
import { deepestPage, measurePortQueries, PAGE } from './port-queries.js';
import { readTemplates, seed, seededPaymentId, type Templates } from './seed.js';
import {
  checkScale,
  createFigures,
  formatCreateCpu,
  formatScale,
  type Latency,
  type SizeResult,
} from './targets.js';

/**
 * `pnpm bench:scale`: the embedded store holding 10,000, then 100,000, then 1,000,000
 * payments (with their checkout sessions, customers and customer transactions), seeded
 * through the store port while the services are stopped, then served by every service in
 * its own process as `pnpm start` runs them.
 */

const print = (text: string) => process.stdout.write(`${text}\n`);
const TEMPLATE_REFERENCE = 'scale-template';
const SETTLE_MS = 3_000;

function sizes(raw = '10000,100000,1000000'): number[] {
  const list = raw.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`BENCH_SCALE_SIZES: bad list "${raw}"`);
  return list.sort((a, b) => a - b);
}

/**
 * `count` sequential GETs (one at a time: the latency of one query, not of a queue). A
 * failed answer (the gateway gives up on a service after its request timeout) is counted,
 * not timed.
 */
async function timeQuery(url: string, key: string, count: number): Promise<Latency> {
  const times: number[] = [];
  let failed = 0;
  let failure: string | undefined;
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.text();
    if (response.ok) times.push(performance.now() - started);
    else {
      failed += 1;
      failure ??= `${response.status} ${body.slice(0, 200)}`;
    }
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    count,
    failed,
    ...(failure && { failure }),
  };
}

/** One real flow, whose documents become the templates of every seeded payment. */
async function templateFlow(system: ProcessSystem, accounts: BenchAccounts): Promise<void> {
  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${system.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as Record<string, string>;
    });
  const payment = await post(
    '/v1/payments',
    {
      amount: 5000,
      currency: 'XAF',
      description: 'Scale bench order',
      reference: TEMPLATE_REFERENCE,
      customerId: 'scale-customer',
      customer: { name: 'Scale Shopper', phone: '+237690000001', email: 'shopper@example.com' },
    },
    accounts.testSecretKey,
  );
  const session = new URL(payment.paymentUrl as string).pathname.split('/').pop();
  await post(`/v1/checkout/sessions/${session}/pay`, {
    paymentMethod: 'ORANGE_MONEY',
    phone: '+237690000001',
  });
  await eventually(async () => {
    const read = await fetch(`${system.baseUrl}/v1/payments/${payment.token}`, {
      headers: { authorization: `Bearer ${accounts.testSecretKey}` },
    });
    return ((await read.json()) as { status?: string }).status === 'COMPLETED';
  }, 30_000);
  // The customers service records the transaction from the completion event.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}

async function measureSize(
  size: number,
  system: ProcessSystem,
  key: string,
  read: {
    queries: number;
    searchQueries: number;
    createSeconds: number;
    middleId: string;
    projectId: string;
  },
): Promise<Omit<SizeResult, 'size' | 'seedDocsPerSecond' | 'port'>> {
  const { queries, searchQueries, createSeconds, middleId } = read;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const pids = system.servicePids;
  const idleRssBytes = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, rssBytes(pid) ?? 0]));
  const deep = deepestPage(size);
  const list = (extra: string) => `${system.baseUrl}/v1/payments?limit=${PAGE}${extra}`;
  const middle = `&starting_after=${encodeURIComponent(middleId)}`;
  print(`  queries: list and search, first page, page ${deep} and a cursor at the middle`);
  const listFirst = await timeQuery(list(''), key, queries);
  const listDeep = await timeQuery(list(`&page=${deep}`), key, queries);
  const listCursor = await timeQuery(list(middle), key, queries);
  const searchFirst = await timeQuery(list('&search=shopper'), key, searchQueries);
  const searchDeep = await timeQuery(list(`&search=shopper&page=${deep}`), key, searchQueries);
  const searchCursor = await timeQuery(list(`&search=shopper${middle}`), key, searchQueries);
  // One customer every four payments, each a copy of the template's "Scale Shopper": the
  // search matches them all, the statistics count them all.
  const customers = `${system.baseUrl}/v1/projects/${read.projectId}/customers`;
  print('  queries: customers list, search and statistics');
  const customersList = await timeQuery(`${customers}?sort_by=totalSpent`, key, searchQueries);
  const customersSearch = await timeQuery(`${customers}?search=shopper`, key, searchQueries);
  const customersStats = await timeQuery(`${customers}/stats`, key, searchQueries);
  print(`  creating payments for ${createSeconds} s`);
  const config = { ...readConfig(), durationSeconds: createSeconds, warmupSeconds: 1 };
  const create = await measure(createPaymentScenario(system.baseUrl, key), config, withNatsServer(pids));
  return {
    startMs: system.startMs,
    idleRssBytes,
    peakRssBytes: Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, peakRssBytes(pid) ?? 0])),
    listFirst,
    listDeep,
    listCursor,
    searchFirst,
    searchDeep,
    searchCursor,
    customersList,
    customersSearch,
    customersStats,
    deepPage: deep,
    ...createFigures(create),
  };
}

async function main(): Promise<number> {
  const env = process.env;
  const startedAt = new Date();
  const plan = sizes(env.BENCH_SCALE_SIZES);
  const queries = Number(env.BENCH_SCALE_QUERIES ?? 50);
  const searchQueries = Number(env.BENCH_SCALE_SEARCH_QUERIES ?? 10);
  const createSeconds = Number(env.BENCH_SCALE_CREATE_S ?? 5);
  if (env.BENCH_SKIP_BUILD !== '1') {
    print('building the services (as pnpm start does)');
    buildServices();
  }
  const test = createTestSystem('scale');
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  const start = () => startProcesses({ env: benchEnv(1_000), reuse: test, adminToken });
  const results: SizeResult[] = [];
  try {
    print(`data folder ${test.dataDir}; a first start makes the project and the template flow`);
    const first = await start();
    let accounts: BenchAccounts;
    try {
      accounts = await createAccounts(first.baseUrl, adminToken);
      await templateFlow(first, accounts);
    } finally {
      await first.stop();
    }
    const templates: Templates = await readTemplates(test.dataDir, TEMPLATE_REFERENCE);
    const salt = randomBytes(2).toString('hex');
    let seeded = 0;
    for (const size of plan) {
      print(
        `\n== ${size.toLocaleString('en')} payments: seeding ${(size - seeded).toLocaleString('en')} more`,
      );
      const rate = await seed(test.dataDir, templates, seeded, size, salt, (done) =>
        print(`  ${done.toLocaleString('en')} payments`),
      );
      seeded = size;
      print(`  seeded at ${rate} documents/s; list and search at the store port`);
      const port = await measurePortQueries(test.dataDir, accounts.projectId, size, queries, searchQueries);
      print('  starting the services');
      const system = await start();
      try {
        results.push({
          size,
          seedDocsPerSecond: rate,
          port,
          ...(await measureSize(size, system, accounts.testSecretKey, {
            queries,
            searchQueries,
            createSeconds,
            middleId: seededPaymentId(templates, Math.floor(size / 2), salt),
            projectId: accounts.projectId,
          })),
        });
      } finally {
        await system.stop();
      }
      print(formatScale(results.slice(-1)));
    }
  } finally {
    await test.cleanup();
  }
  const checks = checkScale(results);
  print(`\n${formatScale(results)}\n`);
  print(`${formatCreateCpu(results)}\n`);
  print(
    table(
      ['target', 'measured', 'target', ''],
      checks.map((c) => [c.figure, c.measured, c.target, c.met ? 'met' : 'MISSED']),
    ),
  );
  const file = writeResults(fileURLToPath(new URL('../../results', import.meta.url)), 'scale', startedAt, {
    config: { sizes: plan, queries, searchQueries, createSeconds, pageSize: PAGE },
    sizes: results,
    targets: checks,
  });
  print(`\nresults: ${file}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
