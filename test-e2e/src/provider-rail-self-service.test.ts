import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { createServiceCallHandler, pushSettlement, type ExecutionOrder } from '@mmp/provider-kit';
import { startSystem, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import { mmpAgainst, webhookRailArgs } from './support/mmp.js';
import { paySandbox, routedRails } from './support/sandbox-payments.js';

/**
 * A provider runs its rail itself, through the API (its `sk_` key) and `mmp rails`: it
 * changes it, takes it out of service and back, and deletes it once no order is open.
 * Another provider's rail and an unknown one look the same: 404.
 */
let system: RunningSystem;
const { mmp, mmpJson } = mmpAgainst(() => system);
let adapter: Server;
let adapterUrl: string;
/** The secret of the rail whose endpoint the adapter is; set once the rail exists. */
let railSecret = '';
const orders: ExecutionOrder[] = [];

type Provider = { id: string; apiKey: string; signingSecret: string };
type Rail = { id: string; status: string; inService: boolean; priority: number; secret?: string };

beforeAll(async () => {
  system = await startSystem();
  // The provider's webhook adapter: answers health checks, accepts orders, settles only when told.
  adapter = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const handle = createServiceCallHandler({
        secret: railSecret,
        onOrder: async (order) => (orders.push(order), { status: 'ACCEPTED' }),
      });
      void handle(Buffer.concat(chunks), request.headers).then(({ status, body }) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      );
    });
  });
  await new Promise<void>((done) => adapter.listen(0, '127.0.0.1', done));
  adapterUrl = `http://127.0.0.1:${(adapter.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  adapter?.closeAllConnections();
  await new Promise((done) => adapter?.close(done));
  await system?.stop();
});

async function newProvider(name: string): Promise<Provider> {
  return (await mmpJson(['provider', 'create', '--name', name])) as Provider;
}

/** An ACTIVE webhook sandbox rail at the adapter, ahead of the sandbox provider's (priority 0). */
async function activeRail(provider: Provider): Promise<Rail> {
  const key = ['--provider-key', provider.apiKey];
  const rail = (await mmpJson(webhookRailArgs(adapterUrl, provider.apiKey))) as Rail;
  railSecret = rail.secret!;
  expect(await mmpJson(['rails', 'test', rail.id, ...key])).toMatchObject({ status: 'TESTED' });
  expect(await mmpJson(['rails', 'activate', rail.id, ...key])).toMatchObject({ status: 'ACTIVE' });
  return rail;
}

/** A new shop's sandbox payment paid with the Orange success number, and where it went. */
async function sandboxPayment() {
  const shop = await system.createProject('Self-service Shop');
  const { token, read } = await paySandbox(system.baseUrl, shop.testSecretKey, '+237690000001');
  const routedTo = await eventually(async () => routedRails(await read())[0], 20_000);
  return { token, routedTo, read };
}

describe('a provider running its rail', () => {
  it('updates it through the API and mmp; a new endpoint is re-checked and sends it back to PENDING', async () => {
    const provider = await newProvider('Updating Co');
    const asProvider = api(system.baseUrl, provider.apiKey);
    const rail = await activeRail(provider);
    const path = `/v1/provider/rails/${rail.id}`;

    const updated = await asProvider<Rail>('PATCH', path, { priority: 3, supportsPayout: true });
    expect(updated).toMatchObject({
      status: 200,
      body: { priority: 3, supportsPayout: true, status: 'ACTIVE' },
    });

    const privateAddress = await asProvider('PATCH', path, { endpoint: 'https://192.168.1.20/mmp' });
    expect(privateAddress).toMatchObject({
      status: 422,
      body: { error: { code: 'validation_error', errors: [{ field: 'endpoint' }] } },
    });
    const fixed = await asProvider('PATCH', path, { transport: 'pull' });
    expect(fixed).toMatchObject({ status: 422, body: { error: { errors: [{ field: 'transport' }] } } });

    const key = ['--provider-key', provider.apiKey];
    const moved = await mmp([
      'rails',
      'update',
      rail.id,
      ...key,
      '--endpoint',
      `${adapterUrl}v2`,
      '--priority',
      '4',
    ]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout.trim()).toBe(
      `Rail ${rail.id} is PENDING, in service (priority 4, payouts, ${adapterUrl}v2). Next: mmp rails test ${rail.id}`,
    );
    expect(await mmpJson(['rails', 'update', rail.id, ...key, '--no-supports-payout'])).toMatchObject({
      supportsPayout: false,
      priority: 4,
    });
    const nothing = await mmp(['rails', 'update', rail.id, ...key, '--json']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('validation_error');
    await asProvider('DELETE', path);
  });

  it('out of service takes no new order, the order already out finishes; delete waits for it (409), then succeeds', async () => {
    const provider = await newProvider('Draining Co');
    const key = ['--provider-key', provider.apiKey];
    const rail = await activeRail(provider);

    const first = await sandboxPayment();
    expect(first.routedTo).toBe(rail.id);
    const order = await eventually(async () => orders.find((o) => o.transaction_ref === first.token), 10_000);

    const disabled = await mmp(['rails', 'disable', rail.id, ...key]);
    expect(disabled.stdout.trim()).toBe(
      `Rail ${rail.id} is ACTIVE, out of service: no new orders (priority 0, ${adapterUrl}).`,
    );
    // The next sandbox payment goes to the sandbox provider's rail and completes there.
    const second = await sandboxPayment();
    expect(second.routedTo).not.toBe(rail.id);
    await eventually(async () => (await second.read()).status === 'COMPLETED', 20_000);

    // The order already out is open: deleting is refused, through the API and mmp.
    const refused = await api(system.baseUrl, provider.apiKey)('DELETE', `/v1/provider/rails/${rail.id}`);
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'rail_has_open_orders' } } });
    expect((refused.body as { error: { message: string } }).error.message).toContain(order.idempotency_key);
    const refusedCli = await mmp(['rails', 'delete', rail.id, ...key, '--json']);
    expect(refusedCli.code).toBe(1);
    expect(refusedCli.stderr).toContain('rail_has_open_orders');

    // Its settlement still applies, out of service or not; then the rail may go.
    const pushed = await pushSettlement({
      baseUrl: `${system.baseUrl}/v1`,
      providerId: provider.id,
      signingSecret: provider.signingSecret,
      event: {
        protocol_version: '1',
        idempotency_key: order.idempotency_key,
        transaction_ref: order.transaction_ref,
        amount: order.amount,
        currency: order.currency,
        status: 'COMPLETED',
        network: order.network,
        settled_at: new Date().toISOString(),
      },
    });
    expect(pushed.status).toBe(200);
    await eventually(async () => (await first.read()).status === 'COMPLETED', 20_000);

    expect(await mmpJson(['rails', 'enable', rail.id, ...key])).toMatchObject({ inService: true });
    const deleted = await mmp(['rails', 'delete', rail.id, ...key]);
    expect(deleted.stdout.trim()).toBe(`Rail ${rail.id} deleted.`);
    const gone = await mmp(['rails', 'get', rail.id, ...key, '--json']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('resource_not_found');
    // The completed payment still shows where it went.
    expect(routedRails(await first.read())).toEqual([rail.id]);
  });

  it("answers 404 for an unknown rail and for another provider's rail alike, and leaves the rail alone", async () => {
    const owner = await newProvider('Owner Co');
    const rail = await activeRail(owner);
    const stranger = await newProvider('Stranger Co');
    const asStranger = api(system.baseUrl, stranger.apiKey);
    const calls: [string, string, unknown?][] = [
      ['PATCH', '', { priority: 1 }],
      ['POST', '/disable'],
      ['POST', '/enable'],
      ['DELETE', ''],
    ];
    for (const [method, action, body] of calls) {
      const foreign = await asStranger(method, `/v1/provider/rails/${rail.id}${action}`, body);
      const unknown = await asStranger(method, `/v1/provider/rails/rail_unknown${action}`, body);
      expect(foreign.status).toBe(404);
      const strip = (b: unknown) => ({
        ...(b as { error: Record<string, unknown> }).error,
        request_id: null,
      });
      expect(strip(foreign.body)).toEqual(strip(unknown.body));
      expect(strip(foreign.body)).toMatchObject({ code: 'resource_not_found', message: 'Rail not found.' });
    }
    for (const command of ['disable', 'enable', 'delete']) {
      const refused = await mmp(['rails', command, rail.id, '--provider-key', stranger.apiKey, '--json']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('resource_not_found');
    }
    const untouched = await mmpJson(['rails', 'get', rail.id, '--provider-key', owner.apiKey]);
    expect(untouched).toMatchObject({ status: 'ACTIVE', inService: true, priority: 0 });
    // An operator acts for the owner through the admin mirror.
    const byAdmin = await system.admin<Rail>(
      'POST',
      `/v1/admin/providers/${owner.id}/rails/${rail.id}/disable`,
    );
    expect(byAdmin).toMatchObject({ inService: false });
    expect(await system.admin('DELETE', `/v1/admin/providers/${owner.id}/rails/${rail.id}`)).toEqual({
      id: rail.id,
      deleted: true,
    });
  });
});
