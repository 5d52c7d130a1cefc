import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAppError } from '@mmp/protocol';
import {
  checkIdempotencyKey,
  createIdempotencyKeys,
  INSTANCE_ID,
  requestHash,
  type IdempotencyRecord,
} from './idempotency.js';
import { createIdempotentConsumer } from './idempotent.js';
import { openEmbeddedStore } from './store/embedded.js';
import type { Doc } from './store/port.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-idem-'));
const store = await openEmbeddedStore({ dir });
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

let clock = new Date('2026-01-01T00:00:00Z');
const keys = createIdempotencyKeys<string>(store.collection<IdempotencyRecord<string>>('keys'), {
  waitMs: 200,
  staleMs: 60_000,
  now: () => clock,
});

const codeOf = (error: unknown) => (isAppError(error) ? error.code : String(error));

describe('Idempotency-Key records', () => {
  it('gives the first caller the work and every later one its answer', async () => {
    const first = await keys.claim('k1', requestHash({ a: 1 }));
    expect(first.replay).toBeUndefined();
    if (first.replay === undefined) await first.complete('answer');
    expect(await keys.claim('k1', requestHash({ a: 1 }))).toEqual({ replay: 'answer' });
  });

  it('refuses the key with another request, and a duplicate while the first still runs', async () => {
    await keys.claim('k2', requestHash({ a: 1 }));
    const other = await keys.claim('k2', requestHash({ a: 2 })).catch(codeOf);
    expect(other).toBe('idempotency_conflict');
    const meanwhile = await keys.claim('k2', requestHash({ a: 1 })).catch(codeOf);
    expect(meanwhile).toBe('idempotency_conflict');
  });

  it('frees a released key for a retry, and a crashed holder’s key after it goes stale', async () => {
    const first = await keys.claim('k3', 'h');
    if (first.replay === undefined) await first.release();
    const retry = await keys.claim('k3', 'h');
    expect(retry).toMatchObject({ recovering: false });
    clock = new Date(clock.getTime() + 61_000);
    const takeover = await keys.claim('k3', 'h');
    expect(takeover).toMatchObject({ recovering: true });
  });

  it('lets a waiter take over a key whose holder died, once its lease ran out', async () => {
    const records = store.collection<IdempotencyRecord<string>>('leased');
    const leased = createIdempotencyKeys<string>(records, { waitMs: 5000, staleMs: 300 });
    // A holder that died a moment ago: its last renewal set a lease it will never push on.
    const claimedAt = new Date().toISOString();
    await records.insertOne({
      _id: 'dead',
      requestHash: 'h',
      state: 'pending',
      createdAt: new Date(),
      claimedAt,
      holder: 'a-killed-process',
      leaseUntil: new Date(Date.now() + 300).toISOString(),
    });
    const started = Date.now();
    const takeover = await leased.claim('dead', 'h');
    expect(takeover).toMatchObject({ recovering: true });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await records.findOne({ _id: 'dead' })).toMatchObject({ holder: INSTANCE_ID });
  });

  it('keeps a live holder’s key past its lease: a concurrent retry gets the first answer', async () => {
    const records = store.collection<IdempotencyRecord<string>>('leased');
    const leased = createIdempotencyKeys<string>(records, { waitMs: 5000, staleMs: 200 });
    const first = await leased.claim('live', 'h');
    if (first.replay !== undefined) throw new Error('the first request holds the key');
    const retry = leased.claim('live', 'h');
    // The work outlasts several leases; the holder's renewals keep the key its own.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await first.complete('first answer');
    expect(await retry).toEqual({ replay: 'first answer' });
  });

  it('forgets an answer after 24 hours', async () => {
    const first = await keys.claim('k4', 'h');
    if (first.replay === undefined) await first.complete('old');
    clock = new Date(clock.getTime() + 24 * 3600 * 1000 + 1);
    expect((await keys.claim('k4', 'h')).replay).toBeUndefined();
  });

  it('hashes the same body in any key order alike, and checks the key’s length', () => {
    expect(requestHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(requestHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: '1' }));
    expect(checkIdempotencyKey('order-42')).toBe('order-42');
    expect(() => checkIdempotencyKey('')).toThrow(/1 to 255/);
    expect(() => checkIdempotencyKey('x'.repeat(256))).toThrow(/1 to 255/);
  });
});

describe('idempotent consumer', () => {
  type Processed = Doc & { consumer: string; eventId: string; processedAt: Date };
  const processed = store.collection<Processed>('processed');

  it('runs the work once per event id, per consumer, and forgets on a rebuild', async () => {
    const runs: string[] = [];
    const projection = createIdempotentConsumer(processed, 'projection');
    const other = createIdempotentConsumer(processed, 'other');
    await projection.once('evt_1', async () => void runs.push('p1'));
    await projection.once('evt_1', async () => void runs.push('p1 again'));
    await other.once('evt_1', async () => void runs.push('o1'));
    expect(runs).toEqual(['p1', 'o1']);
    expect(await projection.forget()).toBe(1);
    await projection.once('evt_1', async () => void runs.push('p1 replayed'));
    expect(runs).toEqual(['p1', 'o1', 'p1 replayed']);
  });

  it('does not mark an event whose work failed or asked for a retry, so its redelivery runs it again', async () => {
    const consumer = createIdempotentConsumer(processed, 'flaky');
    await expect(
      consumer.once('evt_2', async () => {
        throw new Error('store down');
      }),
    ).rejects.toThrow('store down');
    expect(await consumer.once('evt_2', async () => ({ retryInMs: 100 }))).toEqual({ retryInMs: 100 });
    let ran = false;
    await consumer.once('evt_2', async () => void (ran = true));
    expect(ran).toBe(true);
  });
});
