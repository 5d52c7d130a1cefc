import { describe, expect, it } from 'vitest';
import { useEdgeGateway } from './fixtures/edge.js';
import { ADMIN_TOKEN, expectSimpleError } from './fixtures/gateway.js';

const edge = useEdgeGateway('gwidem');

const callsWith = (key: string) =>
  edge.seen.filter(
    (s) => (s.request as { headers: Record<string, string> }).headers['idempotency-key'] === key,
  );

const create = (key: string, body: unknown = { amount: 1000 }, token = edge.shop.testSecret.key) =>
  edge.gw.http('POST', '/v1/payments', { token, body, headers: { 'idempotency-key': key } });

describe('Idempotency-Key on every POST', () => {
  it('replays the first answer to a retry with the same key and body, without calling the service again', async () => {
    const first = await create('retry-1');
    const again = await create('retry-1', { amount: 1000 });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(callsWith('retry-1')).toHaveLength(1);
  });

  it('treats the same body in another key order as the same request', async () => {
    await create('order-1', { amount: 1000, currency: 'XAF' });
    const again = await create('order-1', { currency: 'XAF', amount: 1000 });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 idempotency_conflict to the same key with another body, in the route’s error form', async () => {
    await create('conflict-1', { amount: 1000 });
    const other = await create('conflict-1', { amount: 2000 });
    expectSimpleError(other, 409, 'idempotency_conflict');
    expect(callsWith('conflict-1')).toHaveLength(1);
  });

  it('runs concurrent duplicates once and gives every caller the same answer', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => create('burst-1')));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(callsWith('burst-1')).toHaveLength(1);
  });

  it('does not keep an error, so a corrected retry may reuse the key', async () => {
    const invalid = () =>
      edge.gw.http('POST', '/v1/payments/pay_x/invalid', {
        token: edge.shop.testSecret.key,
        body: { amount: 1 },
        headers: { 'idempotency-key': 'after-error' },
      });
    expect((await invalid()).status).toBe(400);
    const again = await invalid();
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const corrected = await create('after-error', { amount: 1000 });
    expect(corrected.status).toBe(201);
  });

  it('keeps keys apart per project and per environment', async () => {
    const test = await create('shared-key');
    const live = await create('shared-key', { amount: 1000 }, edge.shop.liveSecret.key);
    const other = await create('shared-key', { amount: 1000 }, edge.other.testSecret.key);
    expect([test.status, live.status, other.status]).toEqual([201, 201, 201]);
    expect(new Set([test.json.token, live.json.token, other.json.token]).size).toBe(3);
    expect(callsWith('shared-key')).toHaveLength(3);
  });

  it('refuses an empty or over-long key with 400 invalid_request', async () => {
    const long = await create('k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ code: 'invalid_request' });
    expect(callsWith('k'.repeat(256))).toHaveLength(0);
  });

  it('covers the gateway’s own admin routes too', async () => {
    const project = (key: string) =>
      edge.gw.http('POST', '/v1/admin/projects', {
        token: ADMIN_TOKEN,
        body: { name: 'Retried Shop' },
        headers: { 'idempotency-key': key },
      });
    const first = await project('admin-1');
    const again = await project('admin-1');
    expect(first.status).toBe(201);
    expect(again.json.id).toBe(first.json.id);
    const listed = await edge.gw.admin('GET', '/v1/admin/projects');
    const named = (listed.json.data as { name: string }[]).filter((p) => p.name === 'Retried Shop');
    expect(named).toHaveLength(1);
    // The replayed answer shows the keys again, but the store keeps it sealed.
    expect(again.json.keys).toEqual(first.json.keys);
    const stored = await edge.gw.running.context.store.collection('idempotency_keys').find({});
    const kept = JSON.stringify(stored);
    expect(kept).toContain('admin:admin-1');
    for (const issued of first.json.keys as { key: string }[]) expect(kept).not.toContain(issued.key);
  });

  it('leaves signed settlements to their own idempotency_key', async () => {
    const settle = () =>
      edge.gw.http('POST', '/v1/provider/webhooks/prv_1', {
        raw: '{"a":1}',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'settle-1' },
      });
    expect((await settle()).headers.get('idempotent-replayed')).toBeNull();
    expect((await settle()).headers.get('idempotent-replayed')).toBeNull();
  });
});
