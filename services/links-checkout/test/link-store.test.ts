import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuplicateKeyError, createLogger, openEmbeddedStore, type Store } from '@mmp/platform';
import { CreatePaymentLinkBody, isAppError, newCheckoutSessionId } from '@mmp/protocol';
import { ensureIndexes, openLinksCheckoutDb } from '../src/store/db.js';
import type { LinkDoc } from '../src/store/links.js';
import type { Deps } from '../src/deps.js';
import { createLink } from '../src/use-cases/links.js';
import { holdLinkUse, releaseLinkUse } from '../src/use-cases/link-uses.js';
import { PUBLIC_URL, PROJECT } from './harness.js';

/**
 * The handlers straight on the real embedded store, without NATS in between: the test
 * chooses the short codes drawn and starts writers in the same tick, so collisions and
 * races happen every run rather than by chance.
 */
let dir: string;
let store: Store;
let deps: Deps;
const draws: string[] = [];
let codes: () => string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mmp-lc-store-'));
  store = await openEmbeddedStore({ dir });
  const db = openLinksCheckoutDb(store);
  await ensureIndexes(db);
  deps = {
    db,
    // Nothing tested here calls another service or shows a merchant.
    bus: { request: () => Promise.reject(new Error('no service is called here')) },
    projects: { get: async (id) => ({ id, name: 'Shop', displayName: null, logoUrl: null }) },
    log: createLogger({ service: 'links-checkout', level: 'silent' }),
    settings: { publicUrl: PUBLIC_URL, sessionTtlSeconds: 900, attemptMs: 11_000 },
    now: () => new Date(),
    newShortCode: () => {
      const code = codes();
      draws.push(code);
      return code;
    },
  };
});
afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const create = (body: unknown) =>
  createLink(deps, { projectId: PROJECT.id, livemode: false }, CreatePaymentLinkBody.parse(body));

describe('short codes', () => {
  it('draws a fresh code when the one drawn is taken', async () => {
    const sequence = ['AAAAAAAA', 'AAAAAAAA', 'AAAAAAAA', 'BBBBBBBB'];
    codes = () => sequence.shift() ?? 'ZZZZZZZZ';
    draws.length = 0;
    const first = await create({ name: 'First', amount: 1000 });
    const second = await create({ name: 'Second', amount: 1000 });
    expect(first).toMatchObject({ shortCode: 'AAAAAAAA', name: 'First' });
    expect(second).toMatchObject({ shortCode: 'BBBBBBBB', name: 'Second' });
    expect(draws).toEqual(['AAAAAAAA', 'AAAAAAAA', 'AAAAAAAA', 'BBBBBBBB']);
  });

  it('gives up after five taken codes and stores nothing', async () => {
    codes = () => 'AAAAAAAA';
    draws.length = 0;
    await expect(create({ name: 'Unlucky', amount: 1000 })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(draws).toHaveLength(5);
    expect(await deps.db.links.count({ name: 'Unlucky' })).toBe(0);
  });
});

function storedLink(overrides: Partial<LinkDoc> = {}): LinkDoc {
  const now = new Date();
  return {
    _id: randomUUID(),
    shortCode: randomUUID().replace(/-/g, '').slice(0, 8),
    projectId: randomUUID(),
    livemode: false,
    name: 'Link',
    description: null,
    amount: 1000,
    currency: 'XAF',
    minAmount: null,
    maxAmount: null,
    status: 'ACTIVE',
    collectPhone: false,
    collectEmail: false,
    collectName: false,
    customFields: [],
    maxUses: 3,
    usageCount: 0,
    reservedBy: [],
    reserved: 0,
    expiresAt: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** Every payer asks for a use in the same tick: all read the link before any of them writes. */
async function race(linkId: string, payers: number) {
  const sessions = Array.from({ length: payers }, () => newCheckoutSessionId());
  const outcomes = await Promise.all(
    sessions.map((id) =>
      holdLinkUse(deps, linkId, id).then(
        () => 'held',
        (error: unknown) => (isAppError(error) ? error.fields?.[0]?.message : String(error)),
      ),
    ),
  );
  return { sessions, outcomes };
}

describe('holding link uses', () => {
  it('lets exactly maxUses - usageCount of many simultaneous payers hold a use', async () => {
    const link = storedLink({ maxUses: 5, usageCount: 2 });
    await deps.db.links.insertOne(link);
    const { sessions, outcomes } = await race(link._id, 12);
    expect(outcomes.filter((o) => o === 'held')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'link_exhausted')).toHaveLength(9);
    const stored = await deps.db.links.findOne({ _id: link._id });
    expect(stored?.reserved).toBe(3);
    expect(new Set(stored?.reservedBy)).toEqual(new Set(sessions.filter((_, i) => outcomes[i] === 'held')));
  });

  it('gives a use back once, and a session asking again keeps its one hold', async () => {
    const link = storedLink({ maxUses: 1 });
    await deps.db.links.insertOne(link);
    const [a, b] = [newCheckoutSessionId(), newCheckoutSessionId()];
    await holdLinkUse(deps, link._id, a);
    await holdLinkUse(deps, link._id, a);
    await expect(holdLinkUse(deps, link._id, b)).rejects.toMatchObject({ code: 'invalid_request' });
    await Promise.all([releaseLinkUse(deps, link._id, a), releaseLinkUse(deps, link._id, a)]);
    expect(await deps.db.links.findOne({ _id: link._id })).toMatchObject({ reserved: 0, reservedBy: [] });
    await holdLinkUse(deps, link._id, b);
    expect(await deps.db.links.findOne({ _id: link._id })).toMatchObject({ reserved: 1, reservedBy: [b] });
  });

  it('works on a link stored before holds existed', async () => {
    const { reserved: _r, reservedBy: _b, deletedAt: _d, ...legacy } = storedLink({ maxUses: 2 });
    await deps.db.links.insertOne(legacy as LinkDoc);
    const { outcomes } = await race(legacy._id, 4);
    expect(outcomes.filter((o) => o === 'held')).toHaveLength(2);
    expect(await deps.db.links.findOne({ _id: legacy._id })).toMatchObject({ reserved: 2 });
  });

  it('holds nothing on a link without maxUses, but still refuses one switched off', async () => {
    const link = storedLink({ maxUses: null });
    await deps.db.links.insertOne(link);
    const { outcomes } = await race(link._id, 5);
    expect(outcomes).toEqual(['held', 'held', 'held', 'held', 'held']);
    expect(await deps.db.links.findOne({ _id: link._id })).toMatchObject({ reserved: 0, reservedBy: [] });
    await deps.db.links.findOneAndUpdate({ _id: link._id }, { $set: { status: 'INACTIVE' } });
    await expect(holdLinkUse(deps, link._id, newCheckoutSessionId())).rejects.toMatchObject({
      code: 'invalid_request',
      fields: [{ field: 'link', message: 'link_inactive' }],
    });
  });
});
