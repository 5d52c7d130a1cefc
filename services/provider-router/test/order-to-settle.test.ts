import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import type { Order } from '../src/domain/order.js';
import { ensureIndexes, openRouterDb, type RouterDb } from '../src/store/db.js';
import { findOrderToSettle } from '../src/store/orders.js';

/**
 * A settlement names its order twice: by the order key it was sent (`idempotency_key`) and
 * by our `transaction_ref`. Both are read at once, on the real embedded store; when they
 * name different orders, the key wins, since a provider may reuse a reference but never a key.
 */
let dir: string;
let store: Store;
let db: RouterDb;

function order(key: string, transactionRef: string, providerIds = ['prv_a']): Order {
  const at = new Date().toISOString();
  return {
    _id: key,
    paymentId: `pay_${key}`,
    projectId: 'proj_1',
    livemode: false,
    amount: 1000,
    currency: 'XAF',
    criteria: {} as Order['criteria'],
    transactionRef,
    payload: {},
    status: 'ACCEPTED',
    railId: 'rail_1',
    providerId: providerIds[0] ?? null,
    transport: 'webhook',
    triedRailIds: ['rail_1'],
    providerIds,
    lastClassification: null,
    failureCode: null,
    decisions: [],
    expiresAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mmp-router-orders-'));
  store = await openEmbeddedStore({ dir });
  db = openRouterDb(store);
  await ensureIndexes(db);
  await db.orders.insertOne(order('pexec_first', 'ref_first'));
  await db.orders.insertOne(order('pexec_second', 'ref_second'));
  await db.orders.insertOne(order('pexec_other', 'ref_other', ['prv_b']));
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const settle = (providerId: string, idempotencyKey: string, transactionRef: string) =>
  findOrderToSettle(db, providerId, { idempotencyKey, transactionRef });

describe('the order a settlement is about', () => {
  it('is the one its key names, even when its transaction_ref names another', async () => {
    expect((await settle('prv_a', 'pexec_second', 'ref_first'))?._id).toBe('pexec_second');
    expect((await settle('prv_a', 'pexec_first', 'ref_second'))?._id).toBe('pexec_first');
  });

  it('is found by its transaction_ref when the key names no order', async () => {
    expect((await settle('prv_a', 'prov-own-key-1', 'ref_second'))?._id).toBe('pexec_second');
  });

  it('is none when neither names an order', async () => {
    expect(await settle('prv_a', 'prov-own-key-2', 'ref_unknown')).toBeNull();
  });

  it('is none when the order was never handed to this provider, even by its key', async () => {
    expect(await settle('prv_a', 'pexec_other', 'ref_other')).toBeNull();
    expect(await settle('prv_a', 'prov-own-key-3', 'ref_other')).toBeNull();
    expect((await settle('prv_b', 'pexec_other', 'ref_first'))?._id).toBe('pexec_other');
  });
});
