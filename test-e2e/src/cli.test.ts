import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { createPullClient, paymentAck, pushSettlement, type SettlementEvent } from '@mmp/provider-kit';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, startWebhookReceiver } from './support/http.js';
import { SAMPLE_MAPPING } from './support/fixtures.js';
import { PULL_RAIL_ARGS, mmpAgainst, projectArgs } from './support/mmp.js';
import { payOnHostedPage } from './support/shopper.js';
import { activeMtnCameroonRail } from './support/rails.js';

/** The `mmp` commands the CLI package's own test does not reach, against the whole system. */
const scratch = mkdtempSync(join(tmpdir(), 'mmp-cli-e2e-'));
let system: RunningSystem;
const { mmp, mmpJson } = mmpAgainst(() => system);

/** The human form: a table or summary, never JSON, with the given words in it. */
async function human(args: string[], ...expected: RegExp[]) {
  const result = await mmp(args);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().startsWith('{')).toBe(false);
  for (const pattern of expected) expect(result.stdout).toMatch(pattern);
  return result.stdout;
}
let shop: ProjectKeys;
const webhookOfShop = (command: string, ...options: string[]) =>
  projectArgs('webhook', shop.id, command, ...options);
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  // Orders live 4 s, so that `mmp reconcile` can show a completion after expiry.
  system = await startSystem({ env: { ORDER_TTL_SECONDS: '4' } });
  shop = await system.createProject('CLI Shop');
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('mmp webhook', () => {
  it('sets an endpoint, rolls its secret, lists it per environment, lists its deliveries and redelivers one', async () => {
    const endpoint = await mmpJson(
      webhookOfShop('set', '--url', receiver.url, '--events', 'transaction.cancelled'),
    );
    expect(endpoint).toMatchObject({
      id: expect.any(String),
      url: receiver.url,
      secret: expect.stringMatching(/^whsec_/),
    });

    const rolled = await mmpJson(webhookOfShop('roll', '--id', endpoint.id));
    expect(rolled).toMatchObject({ id: endpoint.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rolled.secret).not.toBe(endpoint.secret);
    const [sandbox, live] = await Promise.all([
      mmpJson(webhookOfShop('list')),
      mmpJson(webhookOfShop('list', '--live')),
    ]);
    expect(sandbox.data.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(sandbox)).not.toContain(rolled.secret);
    expect(live.data).toEqual([]);

    // A cancelled payment is the quickest real event: no provider involved.
    const merchant = api(system.baseUrl, shop.testSecretKey);
    const payment = await merchant<{ token: string }>('POST', '/v1/payments', {
      amount: 5000,
      description: 'CLI order',
    });
    expect(payment.status).toBe(201);
    expect((await merchant('POST', `/v1/payments/${payment.body.token}/cancel`)).status).toBe(200);
    await eventually(async () => receiver.received.length === 1, 10_000);

    const settled = async () =>
      (
        await merchant<{ data: { status: string }[] }>(
          'GET',
          `/v1/webhook-endpoints/${endpoint.id}/deliveries`,
        )
      ).body.data[0]?.status === 'delivered';
    await eventually(settled, 10_000);
    const deliveries = await mmpJson(webhookOfShop('deliveries', '--id', endpoint.id));
    await human(
      webhookOfShop('deliveries', '--id', endpoint.id),
      /ID\s+EVENT\s+STATUS\s+ATTEMPTS/,
      /transaction\.cancelled\s+delivered\s+1\s+200/,
    );
    await human(webhookOfShop('list'), /ID\s+URL\s+STATUS/, new RegExp(endpoint.id));
    expect(deliveries).toMatchObject({
      data: [
        { endpointId: endpoint.id, eventType: 'transaction.cancelled', attemptCount: 1, status: 'delivered' },
      ],
      has_more: false,
    });

    const delivery = deliveries.data[0];
    const redelivered = await mmpJson(
      webhookOfShop('redeliver', '--id', endpoint.id, '--delivery', delivery.id),
    );
    expect(redelivered).toMatchObject({ id: delivery.id, eventId: delivery.eventId, status: 'pending' });
    await eventually(async () => receiver.received.length === 2, 10_000);
    expect(JSON.parse(receiver.received[1]!.rawBody)).toMatchObject({ type: 'transaction.cancelled' });
  });
});

describe('mmp provider and rails', () => {
  it('creates and lists a provider, drives its rail and reconciles a day', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'CLI Telecom']);
    expect(provider).toMatchObject({
      id: expect.any(String),
      name: 'CLI Telecom',
      apiKey: expect.stringMatching(/^sk_/),
      signingSecret: expect.any(String),
    });
    const providers = await mmpJson(['provider', 'list']);
    expect(providers.data.map((p: { id: string }) => p.id)).toContain(provider.id);
    expect(JSON.stringify(providers)).not.toContain(provider.apiKey);
    expect(JSON.stringify(providers)).not.toContain(provider.signingSecret);

    const key = ['--provider-key', provider.apiKey];
    await expect(
      mmpJson(['rails', 'create', ...key, ...PULL_RAIL_ARGS, '--priority', 'soon']),
    ).rejects.toThrow(/--priority <n>.*must be an integer/);
    const rail = await mmpJson(['rails', 'create', ...key, ...PULL_RAIL_ARGS, '--priority', '2']);
    expect(rail).toMatchObject({ id: expect.any(String), status: 'PENDING', transport: 'pull', priority: 2 });
    const rails = await mmpJson(['rails', 'list'], { MMP_PROVIDER_KEY: provider.apiKey });
    expect(rails.data.map((r: { id: string }) => r.id)).toEqual([rail.id]);
    expect(await mmpJson(['rails', 'test', rail.id, ...key])).toMatchObject({
      id: rail.id,
      status: 'TESTED',
    });
    expect(await mmpJson(['rails', 'activate', rail.id, ...key])).toMatchObject({
      id: rail.id,
      status: 'ACTIVE',
    });

    const mapping = SAMPLE_MAPPING;
    const file = join(scratch, 'mapping.json');
    writeFileSync(file, JSON.stringify(mapping));
    expect(
      await mmpJson(['provider', 'mapping', 'set', '--provider', provider.id, '--file', file]),
    ).toMatchObject({
      mapping,
    });

    const date = new Date().toISOString().slice(0, 10);
    const report = await mmpJson(['reconcile', '--provider', provider.id, '--date', date]);
    expect(report).toMatchObject({ summary: expect.any(Object) });

    // Without --json, every one of them reads as a table or a summary.
    await human(['provider', 'list'], /ID\s+NAME\s+SIGNING SECRET/, new RegExp(provider.id));
    await human(['rails', 'list', ...key], /ID\s+TRANSPORT\s+ENV\s+STATUS/, new RegExp(`${rail.id}\\s+pull`));
    await human(['rails', 'get', rail.id, ...key], /^status\s+ACTIVE$/m, /^lastTest\.ok\s+true$/m);
    await human(
      ['reconcile', '--provider', provider.id, '--date', date],
      /Reconciliation of .* \(sandbox\): 0 order\(s\)/,
      /orderWithoutSettlement\s+0/,
    );
  });
});

describe('mmp reconcile', () => {
  type Provider = { id: string; apiKey: string; signingSecret: string };

  /** A provider with an ACTIVE pull rail for MTN MoMo in Cameroon, ahead of the sandbox's. */
  async function pullProvider(name: string): Promise<Provider> {
    const provider = await system.admin<Provider>('POST', '/v1/admin/providers', { name });
    await activeMtnCameroonRail(api(system.baseUrl, provider.apiKey), { transport: 'pull' });
    return provider;
  }

  it('shows a day matched, settled without order, order without settlement, amount or currency mismatch, completed after expiry', async () => {
    const provider = await pullProvider('Recon Telecom');
    const pull = createPullClient({ baseUrl: system.baseUrl, apiKey: provider.apiKey });
    const merchant = api(system.baseUrl, shop.testSecretKey);

    /** A sandbox payment paid with MTN MoMo; the provider pulls its order and accepts it. */
    async function acceptedOrder() {
      const created = await merchant<{ id: string; token: string; paymentUrl: string; createdAt: string }>(
        'POST',
        '/v1/payments',
        { amount: 5000, currency: 'XAF', description: 'Reconciled order' },
      );
      expect(created.status).toBe(201);
      await payOnHostedPage(system.baseUrl, created.body, '+237670000042');
      const entry = await eventually(async () =>
        (await pull.pending()).find((order) => order.payload.transaction_ref === created.body.token),
      );
      await pull.ack(paymentAck(entry.payload, 'ACCEPTED'));
      await eventually(
        async () =>
          (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status ===
          'PROCESSING',
      );
      return {
        orderKey: entry.idempotency_key,
        paymentId: created.body.id,
        expiresAt: entry.expires_at,
        date: created.body.createdAt.slice(0, 10),
      };
    }
    /** The provider's signed SettlementEvent, COMPLETED for 5000 XAF unless `overrides` say otherwise. */
    const settle = (
      idempotencyKey: string,
      transactionRef: string,
      overrides: Partial<SettlementEvent> = {},
    ) =>
      pushSettlement({
        baseUrl: system.baseUrl,
        providerId: provider.id,
        signingSecret: provider.signingSecret,
        event: {
          protocol_version: '1',
          idempotency_key: idempotencyKey,
          transaction_ref: transactionRef,
          amount: '5000',
          currency: 'XAF',
          status: 'COMPLETED',
          network: 'MTN_MOMO',
          settled_at: new Date().toISOString(),
          ...overrides,
        },
      });

    const settled = await acceptedOrder();
    const unsettled = await acceptedOrder();
    const mismatched = await acceptedOrder();
    const late = await acceptedOrder();

    const onTime = await settle(settled.orderKey, 'RT-1');
    expect(onTime).toMatchObject({ status: 200, body: { matched: true, orderKey: settled.orderKey } });
    const stray = await settle('rt-stray-1', 'RT-STRAY');
    expect(stray).toMatchObject({ status: 200, body: { matched: false, orderKey: null } });
    // In cents rather than major units, then in the wrong currency: both refused, both kept.
    for (const wrong of [{ amount: '500000' }, { currency: 'XOF' }]) {
      expect((await settle(mismatched.orderKey, 'RT-2', wrong)).status).toBe(422);
    }
    await eventually(async () => Date.now() > Date.parse(late.expiresAt) + 100, 10_000);
    const afterExpiry = await settle(late.orderKey, 'RT-3');
    expect(afterExpiry).toMatchObject({ status: 200, body: { matched: true, orderKey: late.orderKey } });

    const report = await mmpJson(['reconcile', '--provider', provider.id, '--date', settled.date]);
    expect(report).toMatchObject({
      providerId: provider.id,
      date: settled.date,
      livemode: false,
      summary: {
        orders: 4,
        matched: 2,
        settledWithoutOrder: 1,
        orderWithoutSettlement: 2,
        amountMismatch: 2,
        completedAfterExpiry: 1,
      },
    });
    // Entries of one category come in no documented order: compare them sorted.
    const sorted = <T extends { orderKey: string | null }>(entries: T[]) =>
      [...entries].sort((a, b) => String(a.orderKey).localeCompare(String(b.orderKey)));
    const settlementId = (result: { body: unknown }) =>
      (result.body as { settlementId: string }).settlementId;
    const matchedEntry = (order: typeof settled, settlement: { body: unknown }) => ({
      orderKey: order.orderKey,
      paymentId: order.paymentId,
      amount: 5000,
      currency: 'XAF',
      settlements: [
        { settlementId: settlementId(settlement), status: 'COMPLETED', receivedAt: expect.any(String) },
      ],
    });
    expect(sorted(report.matched)).toEqual(
      sorted([matchedEntry(settled, onTime), matchedEntry(late, afterExpiry)]),
    );
    expect(report.settledWithoutOrder).toEqual([
      {
        settlementId: settlementId(stray),
        idempotencyKey: 'rt-stray-1',
        transactionRef: 'RT-STRAY',
        status: 'COMPLETED',
        amount: '5000',
        currency: 'XAF',
        receivedAt: expect.any(String),
      },
    ]);
    expect(sorted(report.orderWithoutSettlement)).toEqual(
      sorted(
        [unsettled, mismatched].map((order) => ({
          orderKey: order.orderKey,
          paymentId: order.paymentId,
          status: 'ACCEPTED',
          amount: 5000,
          currency: 'XAF',
          expiresAt: order.expiresAt,
        })),
      ),
    );
    const mismatch = (field: string) => ({
      orderKey: mismatched.orderKey,
      paymentId: mismatched.paymentId,
      idempotencyKey: mismatched.orderKey,
      fields: [{ field, message: expect.stringContaining(`does not equal the order's ${field}`) }],
      receivedAt: expect.any(String),
    });
    expect(report.amountMismatch).toHaveLength(2);
    expect(report.amountMismatch).toEqual(expect.arrayContaining([mismatch('amount'), mismatch('currency')]));
    await human(
      ['reconcile', '--provider', provider.id, '--date', settled.date],
      /amountMismatch\s+2/,
      /^completedAfterExpiry:$/m,
    );
    expect(report.completedAfterExpiry).toEqual([
      {
        settlementId: settlementId(afterExpiry),
        orderKey: late.orderKey,
        paymentId: late.paymentId,
        settledAt: expect.any(String),
        receivedAt: expect.any(String),
      },
    ]);
  });
});

describe('mmp customers', () => {
  it('rebuilds the customer profiles and says how many events it replayed', async () => {
    const rebuilt = await mmpJson(['customers', 'rebuild']);
    expect(rebuilt).toMatchObject({ events: expect.any(Number), durationMs: expect.any(Number) });
    await human(['customers', 'rebuild'], /^events\s+\d+$/m, /^durationMs\s+\d+$/m);
  });
});
