import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectNats, createLogger, operation, type NatsConnection } from '@mmp/platform';
import { eventually, natsServerInstalled, startNatsServer } from '@mmp/platform/testing';
import { appError, notices, paymentsApi, randomBase62 } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { recordedReply } from './fixtures/replies.js';

/**
 * A merchant's read of a payment is answered from the reply the gateway kept until payments
 * tells the payment changed (or the bound passes): what a merchant polling a payment sees
 * is never older than the last change payments told.
 */
let gw: TestGateway;
let nc: NatsConnection;
let project: Awaited<ReturnType<TestGateway['createProject']>>;
/** What payments holds: token → status, with the project it belongs to. */
const stored = new Map<string, { projectId: string; livemode: boolean; status: string }>();
let asked: string[] = [];
/** Holds the next read until released, to change the payment while it is in flight. */
let hold: Promise<void> | undefined;

const base = recordedReply(paymentsApi.retrieve, 200);

beforeAll(async () => {
  gw = await startTestGateway({
    routes: forwardedRoutes,
    label: 'gwkept',
    env: { REPLY_CACHE_MS: '60000' },
  });
  await gw.serve(
    operation(paymentsApi.retrieve, async (request, { actor }) => {
      const token = request.params.token ?? '';
      asked.push(token);
      const found = stored.get(token);
      const readNow = found && { ...found };
      await hold;
      if (!readNow || actor.kind !== 'merchant' || readNow.projectId !== actor.projectId)
        throw appError('resource_not_found', 'No such payment.');
      if (readNow.livemode !== actor.livemode) throw appError('resource_not_found', 'No such payment.');
      return { status: 200, body: { ...base, token, status: readNow.status } };
    }),
  );
  nc = await connectNats({
    url: gw.system.env.NATS_URL!,
    name: 'payments',
    log: createLogger({ service: 'payments', level: 'silent' }),
  });
  project = await gw.createProject('Kept');
});

afterAll(async () => {
  await nc?.close();
  await gw?.stop();
});

beforeEach(() => {
  asked = [];
});

const read = (token: string, key = project.testSecret.key, query = '') =>
  gw.http('GET', `/v1/payments/${token}${query}`, { token: key });

/** What payments does after a write: tell the gateway which payment changed. */
async function tellChanged(detail: string) {
  nc.publish(gw.system.naming.subject(notices.paymentChanged.subject), detail);
  await nc.flush();
}

function newPayment(status = 'PROCESSING', livemode = false) {
  const token = `pay_${randomBase62(24)}`;
  stored.set(token, { projectId: project.id, livemode, status });
  return token;
}

describe('a merchant reading a payment again', () => {
  it('is answered the kept reply, without asking payments, until payments tells it changed', async () => {
    const token = newPayment();
    const first = await read(token);
    const second = await read(token);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(second.json.status).toBe('PROCESSING');
    expect(asked).toEqual([token]);

    stored.get(token)!.status = 'COMPLETED';
    await tellChanged(token);
    await eventually(async () => (await read(token)).json.status === 'COMPLETED', 5_000);
    expect((await read(token)).json.status).toBe('COMPLETED');
  });

  it('drops only the payments told, and every one on `*`', async () => {
    const [a, b, c] = [newPayment(), newPayment(), newPayment()];
    for (const token of [a, b, c]) await read(token);
    for (const token of [a, b, c]) stored.get(token)!.status = 'FAILED';
    await tellChanged(a);
    await tellChanged(b);
    await eventually(async () => (await read(a)).json.status === 'FAILED', 5_000);
    expect((await read(b)).json.status).toBe('FAILED');
    expect((await read(c)).json.status).toBe('PROCESSING');
    await tellChanged('*');
    await eventually(async () => (await read(c)).json.status === 'FAILED', 5_000);
  });

  it('never answers another project or environment from a reply kept for one', async () => {
    const token = newPayment();
    expect((await read(token)).status).toBe(200);
    const other = await gw.createProject('Other');
    const refused = await read(token, other.testSecret.key);
    expect(refused.status).toBe(404);
    expect(refused.json.code).toBe('resource_not_found');
    expect((await read(token, project.liveSecret.key)).status).toBe(404);
    expect(asked).toEqual([token, token, token]);
  });

  it('asks payments for a read with a query, and for a payment it could not find', async () => {
    const token = newPayment();
    const missing = `pay_${randomBase62(24)}`;
    await read(token);
    await read(token, project.testSecret.key, '?expand=customer');
    await read(missing);
    await read(missing);
    expect(asked).toEqual([token, token, missing, missing]);
  });

  it('does not keep a reply read before a change it heard while the read was in flight', async () => {
    const token = newPayment();
    let release = () => undefined as void;
    hold = new Promise<void>((resolve) => (release = resolve));
    const inFlight = read(token);
    await eventually(async () => asked.length === 1, 5_000);
    stored.get(token)!.status = 'CANCELLED';
    await tellChanged(token);
    // The notice travels apart from the reply: give it the time to arrive first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    hold = undefined;
    expect((await inFlight).json.status).toBe('PROCESSING');
    expect((await read(token)).json.status).toBe('CANCELLED');
    expect(asked).toEqual([token, token]);
  });

  it('counts what it answered from kept replies and what it asked, for the operator', async () => {
    const token = newPayment();
    await read(token);
    await read(token);
    const metrics = await (await fetch(`http://127.0.0.1:${gw.running.opsPort}/metrics`)).text();
    expect(metrics).toMatch(/mmp_gateway_kept_replies_total\{outcome="hit"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/mmp_gateway_kept_replies_total\{outcome="miss"[^}]*\} [1-9]/);
  });
});

describe('kept replies with a short bound', () => {
  let short: TestGateway;
  let count = 0;
  beforeAll(async () => {
    short = await startTestGateway({
      routes: forwardedRoutes,
      label: 'gwkeptttl',
      env: { REPLY_CACHE_MS: '200' },
    });
    await short.serve(
      operation(paymentsApi.retrieve, async (request) => {
        count += 1;
        return { status: 200, body: { ...base, token: request.params.token ?? '' } };
      }),
    );
  });
  afterAll(async () => {
    await short?.stop();
  });

  it('asks payments again once the bound has passed, though no change was told', async () => {
    const shop = await short.createProject('Short');
    const bound = `pay_${randomBase62(24)}`;
    const get = () => short.http('GET', `/v1/payments/${bound}`, { token: shop.testSecret.key });
    await get();
    await get();
    expect(count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await get();
    expect(count).toBe(2);
  });
});

describe.skipIf(!natsServerInstalled && process.env.CI !== 'true')(
  'kept replies across a lost NATS connection',
  () => {
    it('are all dropped when the connection comes back, since a change may have been told meanwhile', async () => {
      const server = await startNatsServer();
      // Longer than the test: only the lost connection may drop the kept reply.
      const lost = await startTestGateway({
        routes: forwardedRoutes,
        label: 'gwkeptlost',
        env: { NATS_URL: server.url, REPLY_CACHE_MS: '60000' },
      });
      let asked = 0;
      try {
        await lost.serve(
          operation(paymentsApi.retrieve, async (request) => {
            asked += 1;
            return { status: 200, body: { ...base, token: request.params.token ?? '' } };
          }),
        );
        const shop = await lost.createProject('Lost');
        const token = `pay_${randomBase62(24)}`;
        const get = () => lost.http('GET', `/v1/payments/${token}`, { token: shop.testSecret.key });
        await get();
        await get();
        expect(asked).toBe(1);
        await server.restart({ downMs: 200 });
        await eventually(async () => (await get()).status === 200 && asked === 2, 15_000);
      } finally {
        await lost.stop();
        await server.stop();
      }
    });
  },
);
