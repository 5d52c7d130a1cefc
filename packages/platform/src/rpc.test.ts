import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { appError, isAppError } from '@mmp/protocol';
import { captureLogs, createTestSystem, TEST_NATS_URL } from './testing/index.js';
import { createLogger } from './logger.js';
import { createServiceClient, serveOperations } from './rpc.js';

const system = createTestSystem('rpc');
const logs = captureLogs();
const log = createLogger({ service: 'test', level: 'info', destination: logs.stream });
let nc: NatsConnection;
let served: Awaited<ReturnType<typeof serveOperations>>;

beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
  served = await serveOperations({
    nc,
    naming: system.naming,
    service: 'payments',
    version: '0.0.1',
    log,
    operations: {
      echo: async (request, context) => ({
        status: 200,
        body: { request, actor: context.actor, requestId: context.requestId },
      }),
      note: async (_request, context) => {
        context.log.info('noted');
        return { status: 200, body: {} };
      },
      refuse: async () => {
        throw appError('validation_error', 'Invalid body.', [{ field: 'amount', message: 'too small' }]);
      },
      crash: async () => {
        throw new Error('database password is hunter2');
      },
    },
  });
});

afterAll(async () => {
  await served.stop();
  await nc.close();
  await system.cleanup();
});

describe('request/reply between services', () => {
  const client = () =>
    createServiceClient({ nc, naming: system.naming, caller: 'gateway', defaultTimeoutMs: 1000 });

  it('puts the caller’s request id on every log line the operation writes', async () => {
    await client().call('payments', 'note', {}, { requestId: 'req_traced42' });
    const line = logs
      .text()
      .split('\n')
      .find((l) => l.includes('"msg":"noted"'));
    expect(JSON.parse(line!)).toMatchObject({
      requestId: 'req_traced42',
      operation: 'note',
      service: 'test',
    });
  });

  it('carries the request, the actor and the request id', async () => {
    const reply = await client().call(
      'payments',
      'echo',
      { params: { token: 'pay_1' }, body: { amount: 100 } },
      {
        requestId: 'req_abc',
        actor: { kind: 'merchant', projectId: 'p1', livemode: false, scopes: ['payments:read'], keyId: 'k1' },
      },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      request: { params: { token: 'pay_1' }, body: { amount: 100 } },
      actor: { kind: 'merchant', projectId: 'p1', livemode: false },
      requestId: 'req_abc',
    });
  });

  it('turns a typed failure into the same AppError on the caller side', async () => {
    const error = await client()
      .call('payments', 'refuse', {})
      .catch((caught) => caught);
    expect(isAppError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'validation_error',
      status: 422,
      fields: [{ field: 'amount', message: 'too small' }],
    });
  });

  it('hides an unexpected failure behind internal_error', async () => {
    const error = await client()
      .call('payments', 'crash', {})
      .catch((caught) => caught);
    expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    expect(String(error.message)).not.toContain('hunter2');
  });

  it('answers service_unavailable when nobody serves the operation', async () => {
    const error = await client()
      .call('customers', 'list', {})
      .catch((caught) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
  });

  it('keeps systems with different prefixes apart', async () => {
    const other = createTestSystem('rpcother');
    const error = await createServiceClient({
      nc,
      naming: other.naming,
      caller: 'gateway',
      defaultTimeoutMs: 500,
    })
      .call('payments', 'echo', {})
      .catch((caught) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable' });
    await other.cleanup();
  });
});
