import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '@mmp/platform/testing';
import { startSystem, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import { mmpAgainst } from './support/mmp.js';
import { payOnHostedPage } from './support/shopper.js';
import { outcomeOf, paySandbox } from './support/sandbox-payments.js';

/**
 * The steps of packages/provider-kit/README.md, taken as a provider takes them: `mmp` for the
 * provider and its rail, the kit's example adapter started by its documented command, a
 * merchant's sandbox payment, the reconciliation. The sandbox provider runs too, so this
 * also proves a provider's rail at a priority below 50 gets the sandbox order before it.
 */
const root = resolve(import.meta.dirname, '../..');
let system: RunningSystem;
const { mmp, mmpJson } = mmpAgainst(() => system);
let adapter: { child: ChildProcess; output: () => string } | undefined;

/** `node … packages/provider-kit/examples/webhook-adapter.ts` with its documented variables. */
async function startAdapter(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'packages/provider-kit/examples/webhook-adapter.ts'],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  adapter = { child, output: () => output };
  await eventually(async () => output.includes('listening on'), 20_000);
  return adapter;
}

async function stopAdapter() {
  if (!adapter || adapter.child.exitCode !== null || adapter.child.signalCode !== null) return;
  const exited = new Promise((done) => adapter!.child.once('exit', done));
  adapter.child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  system = await startSystem();
  // The sandbox's rail exists first, so ours is the younger one: only its priority can win.
  await eventually(async () => {
    const providers = await system.admin<{ data: { id: string; name: string }[] }>(
      'GET',
      '/v1/admin/providers',
    );
    const sandbox = providers.data.find((provider) => provider.name === 'sandbox');
    if (!sandbox) return false;
    const rails = await system.admin<{ data: { status: string }[] }>(
      'GET',
      `/v1/admin/providers/${sandbox.id}/rails`,
    );
    return rails.data.some((rail) => rail.status === 'ACTIVE');
  }, 20_000);
}, 60_000);

afterEach(stopAdapter);
afterAll(async () => {
  await stopAdapter();
  await system?.stop();
});

describe("a provider wiring its webhook rail with the kit's guide", () => {
  it('creates it with mmp, tests and activates it, receives and settles a sandbox payment, reconciles', async () => {
    const provider = (await mmpJson(['provider', 'create', '--name', 'Acme Pay'])) as {
      id: string;
      apiKey: string;
      signingSecret: string;
    };
    const asProvider = { MMP_PROVIDER_KEY: provider.apiKey };

    const port = await freePort();
    const rail = await mmp(
      [
        'rails',
        'create',
        '--transport',
        'webhook',
        '--endpoint',
        `http://127.0.0.1:${port}/`,
        '--networks',
        'ORANGE_MONEY,MTN_MOMO',
        '--countries',
        'CM',
        '--currencies',
        'XAF',
        '--priority',
        '0',
      ],
      asProvider,
    );
    expect(rail.code, rail.stderr).toBe(0);
    const railId = /^Rail (rail_\S+) \(webhook, sandbox, priority 0\)/.exec(rail.stdout)?.[1];
    const railSecret = /webhook secret +(whsec_\S+) +\(shown this once/.exec(rail.stdout)?.[1];
    expect(railId && railSecret, rail.stdout).toBeTruthy();
    expect(rail.stdout).toContain(`Next: mmp rails test ${railId}`);

    // Tested before the adapter listens: a failed test says why and fails the command.
    const early = await mmp(['rails', 'test', railId!], asProvider);
    expect(early.code).toBe(1);
    expect(early.stdout).toMatch(/failed its test: unreachable: .*It is PENDING\./);

    const adapterEnv = {
      PROVIDER_ID: provider.id,
      SIGNING_SECRET: provider.signingSecret,
      SERVICE_URL: `${system.baseUrl}/v1`,
      PORT: String(port),
    };
    // The secret of another rail: both sides say which secret to check.
    await startAdapter({ ...adapterEnv, RAIL_SECRET: 'whsec_notthisrails0123456789abcdefgh' });
    const refused = await mmp(['rails', 'test', railId!], asProvider);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      "failed its test: HTTP 401: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?",
    );
    await eventually(
      async () => adapter!.output().includes('signature mismatch (is RAIL_SECRET the whsec_ secret'),
      5_000,
    );
    await stopAdapter();

    const { output } = await startAdapter({ ...adapterEnv, RAIL_SECRET: railSecret! });
    const tested = await mmp(['rails', 'test', railId!], asProvider);
    expect(tested.code, tested.stdout).toBe(0);
    expect(tested.stdout).toMatch(
      /passed its test: health\.ack with the matching nonce \(HTTP 200, \d+ ms\)/,
    );
    const activated = await mmp(['rails', 'activate', railId!], asProvider);
    expect(activated.stdout.trim()).toBe(`Rail ${railId} is ACTIVE.`);
    const read = await mmp(['rails', 'get', railId!, '--json'], asProvider);
    expect(JSON.parse(read.stdout)).toMatchObject({ id: railId, status: 'ACTIVE', lastTest: { ok: true } });
    expect(read.stdout).not.toContain(railSecret);

    const shop = await system.createProject('Onboarding Shop');
    const merchant = api(system.baseUrl, shop.testSecretKey);
    const payment = await merchant<{ token: string; paymentUrl: string; createdAt: string }>(
      'POST',
      '/v1/payments',
      { amount: 5000, description: 'T-shirt' },
    );
    expect(payment.status).toBe(201);
    await payOnHostedPage(system.baseUrl, payment.body, '+237690000001');

    type Timeline = { status: string; events: { type: string; railId?: string }[] };
    const completed = await eventually(async () => {
      const read = await merchant<Timeline>('GET', `/v1/payments/${payment.body.token}?expand[]=events`);
      return read.body.status === 'COMPLETED' && read.body;
    }, 20_000);
    expect(completed.events.find((event) => event.type === 'routing.decided')).toMatchObject({ railId });
    // The adapter prints as it goes; its pipe may lag behind the payment's completion.
    const orderKey = await eventually(async () => {
      const key = /order (pexec_\S+): 5000 XAF ORANGE_MONEY ACCEPTED/.exec(output())?.[1];
      return key && output().includes(`settlement ${key}: HTTP 200`) && key;
    }, 5_000);

    const reconciled = await mmpJson([
      'reconcile',
      '--provider',
      provider.id,
      '--date',
      payment.body.createdAt.slice(0, 10),
    ]);
    expect(reconciled).toMatchObject({
      summary: { orders: 1, matched: 1, settledWithoutOrder: 0, orderWithoutSettlement: 0 },
      matched: [{ orderKey, amount: 5000, currency: 'XAF' }],
    });

    const asProviderApi = api(system.baseUrl, provider.apiKey);
    // A webhook rail's orders are answered by the adapter; the order route is the pull one's.
    expect((await asProviderApi('GET', `/v1/provider/orders/${orderKey}`)).body).toMatchObject({
      error: {
        code: 'resource_not_found',
        message: 'No order of your pull rails with this idempotency_key.',
      },
    });
    const schema = await asProviderApi('GET', '/v1/provider/agent/assist/protocol-v1-schema');
    expect(schema).toMatchObject({ status: 200, body: { title: 'SettlementEvent v1' } });

    // Before the guide's end its rail, at priority 0, takes the sandbox numbers: the example
    // adapter completes the payment the sandbox fails with insufficient_balance.
    expect(
      await outcomeOf((await paySandbox(system.baseUrl, shop.testSecretKey, '+237690000002')).read),
    ).toMatchObject({
      status: 'COMPLETED',
      railIds: [railId],
    });
    // The guide's end hands the sandbox back: out of service, its rail takes no new order.
    const handedBack = await mmp(['rails', 'disable', railId!], asProvider);
    expect(handedBack.stdout).toContain(`Rail ${railId} is ACTIVE, out of service: no new orders`);
    for (const [phone, status, failureCode] of SANDBOX_NUMBERS) {
      const outcome = await outcomeOf((await paySandbox(system.baseUrl, shop.testSecretKey, phone)).read);
      expect({ phone, ...outcome }).toMatchObject({ phone, status, failureCode });
      expect(outcome.railIds, phone).not.toContain(railId);
    }
  });
});

/** The README's sandbox numbers and what the sandbox provider makes of them. */
const SANDBOX_NUMBERS = [
  ['+237690000001', 'COMPLETED', null],
  ['+237670000001', 'COMPLETED', null],
  ['+237690000002', 'FAILED', 'insufficient_balance'],
] as const;
