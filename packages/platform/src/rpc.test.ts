import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { Registry } from 'prom-client';
import { appError, defineHttpOperation, defineOperation, isAppError, type ErrorCode } from '@mmp/protocol';
import { captureLogs, createTestSystem, serveStandIn, TEST_NATS_URL } from './testing/index.js';
import { createLogger } from './logger.js';
import { createBusClient, operation, operations, type ServedOperations } from './rpc.js';

const system = createTestSystem('rpc');
const logs = captureLogs();
const log = createLogger({ service: 'test', level: 'info', destination: logs.stream });
const callerMetrics = new Registry();
let nc: NatsConnection;
let served: ServedOperations;

const merchantActor = {
  kind: 'merchant' as const,
  projectId: 'p1',
  livemode: false,
  scopes: ['payments:read'],
  keyId: 'k1',
};

const echo = defineHttpOperation({
  service: 'payments',
  name: 'echo',
  actors: ['merchant'],
  scope: 'payments:read',
  responses: { 200: z.object({ request: z.unknown(), actor: z.unknown(), requestId: z.string() }) },
  summary: 'Answers what it received',
});
const writeOnly = defineHttpOperation({
  service: 'payments',
  name: 'write-only',
  actors: ['merchant'],
  scope: 'payments:write',
  responses: { 200: z.object({}) },
  summary: 'Needs payments:write',
});
/** An operation the gateway may call as a service, of payments unless `spec` names another. */
function gatewayCalled<Req extends z.ZodType, Rep extends z.ZodType>(
  name: string,
  request: Req,
  reply: Rep,
  summary: string,
  spec: { service?: 'customers'; errors?: readonly ErrorCode[] } = {},
) {
  return defineOperation({
    service: spec.service ?? 'payments',
    name,
    actors: ['service'],
    callers: ['gateway'],
    request,
    reply,
    ...(spec.errors ? { errors: spec.errors } : {}),
    summary,
  });
}
const note = gatewayCalled('note', z.object({}), z.object({}), 'Writes a log line');
const add = gatewayCalled(
  'add',
  z.object({ a: z.number(), b: z.number() }),
  z.object({ sum: z.number() }),
  'Adds',
);
const lie = gatewayCalled('lie', z.object({}), z.object({ sum: z.number() }), 'Answers outside its contract');
const refuse = gatewayCalled('refuse', z.object({}), z.object({}), 'Always refuses', {
  errors: ['validation_error'],
});
const crash = gatewayCalled('crash', z.object({}), z.object({}), 'Always crashes');
const unserved = gatewayCalled('nobody', z.object({}), z.object({}), 'Nobody serves it', {
  service: 'customers',
});

beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
  served = await serveStandIn(
    nc,
    system.naming,
    'payments',
    [
      operation(echo, async (request, context) => ({
        status: 200,
        body: { request, actor: context.actor, requestId: context.requestId },
      })),
      operation(writeOnly, async () => ({ status: 200, body: {} })),
      operation(note, async (_request, context) => {
        context.log.info('noted');
        return {};
      }),
      operation(add, async ({ a, b }) => ({ sum: a + b })),
      operation(lie, async () => ({ sum: 'many' }) as never),
      operation(refuse, async () => {
        throw appError('validation_error', 'Invalid body.', [{ field: 'amount', message: 'too small' }]);
      }),
      operation(crash, async () => {
        throw new Error('database password is hunter2');
      }),
    ],
    { log },
  );
});

afterAll(async () => {
  await served.stop();
  await nc.close();
  await system.cleanup();
});

const client = (caller: 'gateway' | 'customers' = 'gateway') =>
  createBusClient({
    nc,
    naming: system.naming,
    caller,
    defaultTimeoutMs: 1000,
    log,
    metrics: callerMetrics,
  });

describe('request/reply between services, by contract', () => {
  it('puts the caller’s request id on every log line the operation writes', async () => {
    await client().request(note, {}, { requestId: 'req_traced42' });
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

  it('carries the HTTP-shaped request, the actor and the request id', async () => {
    const reply = await client().request(
      echo,
      { params: { token: 'pay_1' }, body: { amount: 100 } },
      { requestId: 'req_abc', actor: merchantActor },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      request: { params: { token: 'pay_1' }, body: { amount: 100 } },
      actor: { kind: 'merchant', projectId: 'p1', livemode: false },
      requestId: 'req_abc',
    });
  });

  it('gives an internal operation its typed input and the caller its typed reply', async () => {
    await expect(client().request(add, { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
  });

  it('refuses an input its contract does not admit, naming every field', async () => {
    const error = await client()
      .request(add, { a: 'two' } as never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'validation_error', status: 422 });
    expect((error as { fields: { field: string }[] }).fields.map((f) => f.field)).toEqual(['a', 'b']);
  });

  it('refuses a reply that breaks the contract as internal_error, counted as a violation', async () => {
    const error = await client()
      .request(lie, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    const metrics = await callerMetrics.metrics();
    expect(metrics).toMatch(
      /mmp_contract_violations_total\{contract="svc\.payments\.lie",direction="reply"\} 1/,
    );
  });

  it('turns a typed failure into the same AppError on the caller side', async () => {
    const error = await client()
      .request(refuse, {})
      .catch((caught: unknown) => caught);
    expect(isAppError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'validation_error',
      status: 422,
      fields: [{ field: 'amount', message: 'too small' }],
    });
  });

  it('hides an unexpected failure behind internal_error', async () => {
    const error = await client()
      .request(crash, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    expect(String((error as Error).message)).not.toContain('hunter2');
  });

  it('answers service_unavailable when nobody serves the operation', async () => {
    const error = await client()
      .request(unserved, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
  });

  it('refuses a request over the server’s max_payload with 413, not as an absent service', async () => {
    const limit = nc.info!.max_payload;
    const sent = await client().request(echo, { body: 'x'.repeat(limit / 2) }, { actor: merchantActor });
    expect(sent.status).toBe(200);
    const error = await client()
      .request(echo, { body: 'x'.repeat(limit) }, { actor: merchantActor })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('keeps systems with different prefixes apart', async () => {
    const other = createTestSystem('rpcother');
    const error = await createBusClient({
      nc,
      naming: other.naming,
      caller: 'gateway',
      defaultTimeoutMs: 500,
      log,
    })
      .request(note, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable' });
    await other.cleanup();
  });

  it('refuses to send for a caller its contract does not list', async () => {
    await expect(client('customers').request(note, {})).rejects.toThrow(
      /not a caller of svc\.payments\.note/,
    );
  });
});

describe('the service checks who calls, whatever the caller claims', () => {
  it('refuses an actor of a kind the contract does not admit', async () => {
    const error = await client()
      .request(echo, {}, { actor: { kind: 'public' } })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'insufficient_permissions', status: 403 });
  });

  it('refuses a merchant actor without the scope, and one with no scopes at all', async () => {
    for (const scopes of [['payments:read'], []]) {
      const error = await client()
        .request(writeOnly, {}, { actor: { ...merchantActor, scopes } })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'insufficient_permissions', status: 403 });
    }
  });

  it('lets write grant read', async () => {
    const reply = await client().request(
      echo,
      {},
      { actor: { ...merchantActor, scopes: ['payments:write'] } },
    );
    expect(reply.status).toBe(200);
  });

  it('refuses an actor header that is not an actor', async () => {
    const { headers } = await import('@nats-io/transport-node');
    const hdrs = headers();
    hdrs.set('x-actor', '{"kind":"merchant","projectId":"p1"}');
    const msg = await nc.request(system.naming.subject(echo.subject), '{}', { headers: hdrs, timeout: 1000 });
    expect(msg.headers?.get('Nats-Service-Error-Code')).toBe('403');
  });
});

describe('operations(), a handlers module served under its API', () => {
  const api = { note, add };
  const handlers = { note: async () => ({}), add: async () => ({ sum: 0 }) };

  it('pairs each handler with the contract of its name, and marks those that keep their outcomes', () => {
    expect(operations(api, handlers, { keepsItsOutcomes: ['add'] })).toEqual([
      { contract: note, handler: handlers.note },
      { contract: add, handler: handlers.add, keepsItsOutcomes: true },
    ]);
  });

  it('refuses a handler no contract of the API is named after', () => {
    expect(() => operations({ note } as typeof api, handlers)).toThrow('no contract named add');
  });
});
