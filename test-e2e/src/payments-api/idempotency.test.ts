import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { randomUUID } from 'node:crypto';
import { api } from '../support/http.js';
import { expectSimpleError, type Call } from './helpers.js';

const shop = useShop('Idempotent Shop');
const { merchant } = shop;

const withKey = (key: string) => ({ 'idempotency-key': key });
const total = async (call: Call) =>
  (await call<{ meta: { total: number } }>('GET', '/v1/payments')).body.meta.total;

describe('Idempotency-Key on POST /v1/payments', () => {
  it('replays the first status and body with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const body = { amount: 2500, description: 'Replay me', reference: `idem-${key}` };
    const first = await merchant('POST', '/v1/payments', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await merchant('POST', '/v1/payments', body, withKey(key));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('answers 409 to the same key with a different body, and creates nothing', async () => {
    const key = randomUUID();
    expect((await merchant('POST', '/v1/payments', { amount: 1000 }, withKey(key))).status).toBe(201);
    const before = await total(merchant);
    const conflict = expectSimpleError(
      await merchant('POST', '/v1/payments', { amount: 1001 }, withKey(key)),
      409,
      'idempotency_conflict',
    );
    expect(conflict.error).toBe('Conflict');
    expect(await total(merchant)).toBe(before);
  });

  it('creates one payment for parallel duplicates through HTTP', async () => {
    const parallel = await shop.system.createProject('Parallel Shop');
    const call = api(shop.system.baseUrl, parallel.testSecretKey);
    const key = randomUUID();
    const body = { amount: 3000, description: 'Only once' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/v1/payments', body, withKey(key))),
    );
    // The duplicates wait for the first request and replay its answer.
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(new Set(answers.map((a) => a.body.token)).size).toBe(1);
    expect(await total(call)).toBe(1);
  });

  it('keeps keys apart per environment and per project', async () => {
    const key = randomUUID();
    const test = await merchant('POST', '/v1/payments', { amount: 1000 }, withKey(key));
    const live = await api(shop.system.baseUrl, shop.project.liveSecretKey)(
      'POST',
      '/v1/payments',
      { amount: 1000 },
      withKey(key),
    );
    const other = await shop.system.createProject('Key Shop');
    const elsewhere = await api(shop.system.baseUrl, other.testSecretKey)(
      'POST',
      '/v1/payments',
      { amount: 1000 },
      withKey(key),
    );
    expect([test.status, live.status, elsewhere.status]).toEqual([201, 201, 201]);
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(new Set([test.body.token, live.body.token, elsewhere.body.token]).size).toBe(3);
  });

  it('does not spend a key on a refused request', async () => {
    const key = randomUUID();
    expectSimpleError(
      await merchant('POST', '/v1/payments', { amount: 5 }, withKey(key)),
      400,
      'invalid_amount',
    );
    const retried = await merchant('POST', '/v1/payments', { amount: 500 }, withKey(key));
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('leaves the key free after a duplicate_transaction refusal', async () => {
    const reference = `dup-${randomUUID()}`;
    expect((await merchant('POST', '/v1/payments', { amount: 1000, reference })).status).toBe(201);
    const key = randomUUID();
    expectSimpleError(
      await merchant('POST', '/v1/payments', { amount: 1000, reference }, withKey(key)),
      409,
      'duplicate_transaction',
    );
    const fresh = await merchant(
      'POST',
      '/v1/payments',
      { amount: 1000, reference: `${reference}-b` },
      withKey(key),
    );
    expect(fresh.status).toBe(201);
  });

  it('refuses a key longer than 255 characters', async () => {
    const response = await merchant('POST', '/v1/payments', { amount: 1000 }, withKey('k'.repeat(256)));
    expectSimpleError(response, 400, 'invalid_request');
  });

  it('replays a merchant cancel with the same key', async () => {
    const created = await merchant<{ token: string }>('POST', '/v1/payments', { amount: 1000 });
    const key = randomUUID();
    const cancel = () =>
      merchant('POST', `/v1/payments/${created.body.token}/cancel`, undefined, withKey(key));
    const first = await cancel();
    expect(first.status).toBe(200);
    const second = await cancel();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });
});
