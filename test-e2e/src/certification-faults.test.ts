import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import type { api } from './support/http.js';
import { startFaultyAdapter, type Fault } from './support/faulty-adapter.js';
import { mmpAgainst } from './support/mmp.js';
import { startPullAdapter } from './support/pull-adapter.js';
import { newProvider, webhookRailOnFreePort } from './support/rails.js';
import { startSystem, type RunningSystem } from './support/system.js';

/**
 * Issue 13's faulty adapters: each fails the certification case(s) naming its fault and no
 * other, against the real system. And the badge both ways: a passing full run certifies the
 * channel, a later failing one on the same channel takes the badge away.
 */
let system: RunningSystem;
const { mmp } = mmpAgainst(() => system);
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  system = await startSystem({
    external: ['sandbox-provider'],
    env: {
      DELIVERY_TIMEOUT_MS: '1500',
      DELIVERY_BACKOFF_MS: '100',
      DELIVERY_MAX_ATTEMPTS: '2',
      ORDER_EXPIRY_INTERVAL_MS: '300',
      CERTIFICATION_SETTLEMENT_WAIT_MS: '4000',
      CERTIFICATION_DELIVERY_WAIT_MS: '15000',
      CERTIFICATION_DUPLICATE_GRACE_MS: '500',
    },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await system?.stop();
});

type RunView = {
  id: string;
  status: string;
  badge: string | null;
  cases: { number: number; status: string; observed: string | null }[];
};

/** A provider with a tested sandbox webhook rail served by an adapter with `fault`. */
async function providerWith(fault: Fault | 'none') {
  const provider = await newProvider(system, `Faulty ${fault}`);
  const { portal } = provider;
  const rail = await webhookRailOnFreePort(portal, {
    networks: ['MTN_MOMO'],
    countries: ['CM'],
    currencies: ['XAF'],
  });
  const serve = async (serving: Fault | 'none') => {
    const adapter = await startFaultyAdapter({
      fault: serving,
      railSecret: rail.secret,
      providerId: provider.id,
      signingSecret: provider.signingSecret,
      serviceUrl: system.baseUrl,
      port: rail.port,
    });
    closers.push(adapter.close);
    return adapter;
  };
  const adapter = await serve(fault);
  expect((await portal('POST', `/v1/provider/rails/${rail.id}/test`)).body).toMatchObject({
    status: 'TESTED',
  });
  return { provider, portal, rail, adapter, serve };
}

async function certify(portal: ReturnType<typeof api>, railId: string): Promise<RunView> {
  const started = await portal<RunView>('POST', `/v1/provider/rails/${railId}/certification-runs`);
  expect(started.status).toBe(202);
  return eventually(async () => {
    const { body } = await portal<RunView>('GET', `/v1/provider/certification-runs/${started.body.id}`);
    return body.status === 'RUNNING' ? undefined : body;
  }, 60_000);
}

const failed = (run: RunView) =>
  run.cases.filter((entry) => entry.status === 'FAILED').map((entry) => entry.number);

const EXPECTED: Record<Fault, number[]> = {
  'accepts-wrong-signature': [12],
  'settles-in-cents': [3],
  'executes-repeated-key-twice': [10, 11],
  // Cases 2 and 3 need the adapter's settlements too; the ingestion cases do not.
  'never-settles': [1, 2, 3],
  // 8, and every case that needs an order accepted with its own key.
  'echoes-another-key': [1, 2, 3, 8, 10, 11],
};

describe('deliberately faulty adapters', () => {
  it('each fails exactly the case(s) naming its fault', async () => {
    const runs = await Promise.all(
      (Object.keys(EXPECTED) as Fault[]).map(async (fault) => {
        const { portal, rail } = await providerWith(fault);
        return { fault, run: await certify(portal, rail.id) };
      }),
    );
    for (const { fault, run } of runs) {
      const observed = run.cases
        .map((entry) => `${entry.number} ${entry.status}: ${entry.observed}`)
        .join('\n');
      expect(failed(run), `${fault}\n${observed}`).toEqual(EXPECTED[fault]);
      expect(run).toMatchObject({ status: 'FAILED', badge: 'UNCERTIFIED' });
    }
  }, 120_000);
});

describe('the badge both ways', () => {
  it('a passing full run certifies the channel; a later failing one takes the badge away', async () => {
    const { portal, rail, adapter, serve } = await providerWith('none');
    const passing = await certify(portal, rail.id);
    expect(failed(passing)).toEqual([]);
    expect(passing).toMatchObject({ status: 'PASSED', badge: 'CERTIFIED' });
    await eventually(
      async () =>
        (await portal<{ certified: boolean }>('GET', `/v1/provider/rails/${rail.id}`)).body.certified,
      10_000,
    );

    await adapter.close();
    await serve('accepts-wrong-signature');
    const failing = await certify(portal, rail.id);
    expect(failed(failing)).toEqual([12]);
    expect(failing.badge).toBe('UNCERTIFIED');
    await eventually(
      async () =>
        !(await portal<{ certified: boolean }>('GET', `/v1/provider/rails/${rail.id}`)).body.certified,
      10_000,
    );
  }, 120_000);
});

describe('mmp certify', () => {
  it('prints a line per case and a summary, exits 0 only on a pass, re-runs one case, writes JUnit', async () => {
    const good = await providerWith('none');
    const asProvider = { MMP_PROVIDER_KEY: good.provider.apiKey };
    const passed = await mmp(['certify', good.rail.id], asProvider);
    expect(passed.code, passed.stderr).toBe(0);
    const lines = passed.stdout.split('\n');
    expect(lines.filter((line) => /^case +\d+ +PASSED /.test(line))).toHaveLength(12);
    expect(passed.stdout).toMatch(/PASSED: 12\/12 cases passed/);
    expect(passed.stdout).toContain('is CERTIFIED');

    const dir = mkdtempSync(join(tmpdir(), 'mmp-junit-'));
    try {
      const file = join(dir, 'certification.xml');
      const single = await mmp(
        ['certify', good.rail.id, '--provider', good.provider.id, '--case', '12', '--json', '--junit', file],
        { MMP_PROVIDER_KEY: '' },
      );
      expect(single.code, single.stderr).toBe(0);
      expect(JSON.parse(single.stdout)).toMatchObject({ kind: 'single', status: 'PASSED', badge: null });
      const xml = readFileSync(file, 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml) as {
        testsuites: { testsuite: { '@_tests': string; '@_failures': string } };
      };
      expect(parsed.testsuites.testsuite).toMatchObject({ '@_tests': '1', '@_failures': '0' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const faulty = await providerWith('accepts-wrong-signature');
    const failing = await mmp(['certify', faulty.rail.id, '--json'], {
      MMP_PROVIDER_KEY: faulty.provider.apiKey,
    });
    expect(failing.code).toBe(1);
    const run = JSON.parse(failing.stdout) as RunView;
    expect(failed(run)).toEqual([12]);

    const unknown = await mmp(['certify', 'rail_unknown'], asProvider);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('resource_not_found');
    const badCase = await mmp(['certify', good.rail.id, '--case', '99'], asProvider);
    expect(badCase.code).not.toBe(0);
  }, 120_000);
});

describe('certification refusals', () => {
  it('answers bad starts, unknown and foreign rails and runs, and bad case numbers with their documented errors', async () => {
    const mine = await providerWith('none');
    const other = await providerWith('none');
    const started = await mine.portal<RunView>(
      'POST',
      `/v1/provider/rails/${mine.rail.id}/certification-runs`,
    );
    expect(started.status).toBe(202);
    const code = (response: { status: number; body: unknown }) => [
      response.status,
      (response.body as { error?: { code?: string } }).error?.code,
    ];

    expect(code(await mine.portal('POST', '/v1/provider/rails/rail_unknown/certification-runs'))).toEqual([
      404,
      'resource_not_found',
    ]);
    expect(code(await mine.portal('POST', `/v1/provider/rails/${other.rail.id}/certification-runs`))).toEqual(
      [404, 'resource_not_found'],
    );
    expect(code(await mine.portal('GET', `/v1/provider/rails/${other.rail.id}/certification-runs`))).toEqual([
      404,
      'resource_not_found',
    ]);
    expect(code(await other.portal('GET', `/v1/provider/certification-runs/${started.body.id}`))).toEqual([
      404,
      'resource_not_found',
    ]);
    const events = await fetch(`${system.baseUrl}/v1/provider/certification-runs/${started.body.id}/events`, {
      headers: { authorization: `Bearer ${other.provider.apiKey}` },
    });
    expect(events.status).toBe(404);
    // A channel the rail does not serve, a currency outside the vocabulary: 422 naming the field.
    for (const [body, field] of [
      [{ network: 'WAVE' }, 'network'],
      [{ currency: 'EUR' }, 'currency'],
    ] as const) {
      const refused = await other.portal<{ error: { errors: { field: string }[] } }>(
        'POST',
        `/v1/provider/rails/${other.rail.id}/certification-runs`,
        body,
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error.errors.map((error) => error.field)).toEqual([field]);
    }
    const rerun = await mine.portal(
      'POST',
      `/v1/provider/certification-runs/${started.body.id}/cases/18/rerun`,
    );
    expect(code(rerun)).toEqual([422, 'validation_error']);

    // A rail not yet tested, and a live rail: certification runs on neither.
    const untested = await mine.portal<{ id: string }>('POST', '/v1/provider/rails', {
      transport: 'pull',
      environment: 'sandbox',
      networks: ['MTN_MOMO'],
      countries: ['CM'],
      currencies: ['XAF'],
    });
    expect(
      code(await mine.portal('POST', `/v1/provider/rails/${untested.body.id}/certification-runs`)),
    ).toEqual([409, 'invalid_state']);
    const live = await mine.portal<{ id: string }>('POST', '/v1/provider/rails', {
      transport: 'pull',
      environment: 'live',
      networks: ['MTN_MOMO'],
      countries: ['CM'],
      currencies: ['XAF'],
    });
    await mine.portal('POST', `/v1/provider/rails/${live.body.id}/test`);
    const refused = await mine.portal<{ error: { message: string } }>(
      'POST',
      `/v1/provider/rails/${live.body.id}/certification-runs`,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('sandbox rail only');
    await eventually(async () => {
      const { body } = await mine.portal<RunView>(
        'GET',
        `/v1/provider/certification-runs/${started.body.id}`,
      );
      return body.status !== 'RUNNING';
    }, 60_000);
  }, 120_000);
});

describe('a pull adapter built with the kit, on a rail that executes payouts', () => {
  it('passes 17 of 17', async () => {
    const provider = await newProvider(system, 'Pull Payouts Co');
    const { portal } = provider;
    const rail = await portal<{ id: string }>('POST', '/v1/provider/rails', {
      transport: 'pull',
      environment: 'sandbox',
      supportsPayout: true,
      networks: ['MOOV_MONEY'],
      countries: ['CI'],
      currencies: ['XOF'],
    });
    expect((await portal('POST', `/v1/provider/rails/${rail.body.id}/test`)).body).toMatchObject({
      status: 'TESTED',
    });
    const adapter = startPullAdapter({
      apiKey: provider.apiKey,
      providerId: provider.id,
      signingSecret: provider.signingSecret,
      serviceUrl: system.baseUrl,
    });
    closers.push(adapter.close);
    const run = await certify(portal, rail.body.id);
    expect(
      run.cases
        .filter((entry) => entry.status !== 'PASSED')
        .map((entry) => `${entry.number}: ${entry.observed}`),
    ).toEqual([]);
    expect(run.cases).toHaveLength(17);
    expect(run).toMatchObject({ status: 'PASSED', badge: 'CERTIFIED' });
  }, 90_000);
});
