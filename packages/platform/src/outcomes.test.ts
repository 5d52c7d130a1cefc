import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { appError, defineHttpOperation, isAppError, type ServiceReply } from '@mmp/protocol';
import { createTestSystem, serveStandIn, TEST_NATS_URL } from './testing/index.js';
import { createLogger } from './logger.js';
import { createBusClient, operation, type ServedOperations } from './rpc.js';
import { createOperationOutcomes, type OutcomeRecord } from './outcomes.js';
import { createSecretBox } from './secrets.js';
import { openEmbeddedStore } from './store/embedded.js';

/**
 * A pay whose reply is lost (the caller timed out, as the gateway does when a reply cannot
 * come back) took effect all the same: its retry with the same key must get the first
 * answer, not the "already paid" a second run of the operation would give.
 */
const system = createTestSystem('outcomes');
const log = createLogger({ service: 'test', level: 'silent' });
const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-outcomes-'));
const store = await openEmbeddedStore({ dir });
const records = store.collection<OutcomeRecord>('operation_outcomes');
let nc: NatsConnection;
let served: ServedOperations;

const pay = defineHttpOperation({
  service: 'links-checkout',
  name: 'test-pay',
  actors: ['public'],
  responses: { 200: z.object({ id: z.string(), status: z.string(), secret: z.string() }) },
  errors: ['invalid_state'],
  summary: 'Pays a session once',
});

const paid = new Map<string, number>();
/** Sessions whose reply is held back past the caller's timeout. */
const slow = new Set<string>();

beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
  const outcomes = createOperationOutcomes(records, {
    box: createSecretBox('k'.repeat(32)),
    leaseMs: 200,
    waitMs: 2000,
  });
  const payOnce = operation(pay, async (request): Promise<ServiceReply> => {
    const session = request.params.token!;
    if (paid.has(session)) throw appError('invalid_state', 'This session is already paid.');
    paid.set(session, (paid.get(session) ?? 0) + 1);
    if (slow.has(session)) await new Promise((resolve) => setTimeout(resolve, 600));
    return {
      status: 200,
      body: { id: `pay_${session}`, status: 'paid', secret: `shown-once-${session}` },
    };
  });
  served = await serveStandIn(nc, system.naming, 'links-checkout', [payOnce], { log, outcomes });
});

afterAll(async () => {
  await served.stop();
  await nc.close();
  await system.cleanup();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (token: string, key: string | undefined, options: { timeoutMs?: number } = {}) =>
  createBusClient({ nc, naming: system.naming, caller: 'gateway', defaultTimeoutMs: 3000, log })
    .request(
      pay,
      {
        params: { token },
        query: {},
        body: { payer: '0700' },
        headers: key ? { 'idempotency-key': key } : {},
      },
      { actor: { kind: 'public' }, ...options },
    )
    .catch((error: unknown) => (isAppError(error) ? error.code : String(error)));

describe('the first outcome of a keyed operation, kept by the service that performs it', () => {
  it('answers a retry after a lost reply with the first success, not "already paid"', async () => {
    slow.add('s1');
    expect(await call('s1', 'key-1', { timeoutMs: 150 })).toBe('service_unavailable');
    // The pay took effect although its caller gave up on it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const retry = await call('s1', 'key-1');
    expect(retry).toMatchObject({
      status: 200,
      body: { id: 'pay_s1', status: 'paid' },
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(paid.get('s1')).toBe(1);
  });

  it('makes a retry sent while the first still runs wait for its answer', async () => {
    slow.add('s2');
    const [first, retry] = await Promise.all([
      call('s2', 'key-2'),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => call('s2', 'key-2')),
    ]);
    expect(first).toMatchObject({ status: 200, body: { id: 'pay_s2' } });
    expect(retry).toMatchObject({ status: 200, body: (first as ServiceReply).body });
    expect(paid.get('s2')).toBe(1);
  });

  it('keeps no error, runs requests without a key as they come, and seals what it keeps', async () => {
    expect(await call('s3', undefined)).toMatchObject({ status: 200 });
    expect(await call('s3', undefined)).toBe('invalid_state');
    // An error is not an outcome: the key stays free for a corrected retry.
    expect(await call('s3', 'key-3')).toBe('invalid_state');
    const kept = await records.find({});
    expect(kept.map((record) => record._id).filter((id) => id.endsWith(':key-3'))).toEqual([]);
    expect(kept.length).toBeGreaterThan(0);
    for (const record of kept) expect(JSON.stringify(record)).not.toContain('shown-once');
  });

  it('refuses the key with another request', async () => {
    expect(await call('s4', 'key-1')).toBe('idempotency_conflict');
    expect(paid.has('s4')).toBe(false);
  });

  it('answers idempotency_conflict, never a 500, when the kept answer was sealed under another server key', async () => {
    expect(await call('s5', 'key-5')).toMatchObject({ status: 200 });
    const rotated = createOperationOutcomes(records, { box: createSecretBox('r'.repeat(32)) });
    const request = {
      params: { token: 's5' },
      query: {},
      body: { payer: '0700' },
      headers: { 'idempotency-key': 'key-5' },
    };
    const replay = rotated.run(pay.subject, { kind: 'public' }, request, async () => {
      throw new Error('the work must not run again');
    });
    await expect(replay).rejects.toMatchObject({ code: 'idempotency_conflict' });
    expect(paid.get('s5')).toBe(1);
  });
});
