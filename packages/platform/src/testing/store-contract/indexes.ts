import { describe, expect, it } from 'vitest';
import type { ContractContext } from './context.js';
import { DuplicateKeyError, type Doc } from '../../store/port.js';

type Account = Doc & {
  email?: string;
  project?: string;
  externalId?: string;
  phone?: string;
  expiresAt?: Date;
};

export function describeIndexContract(context: ContractContext): void {
  describe('indexes', () => {
    it('enforces a unique index on insert and on update, and accepts it twice', async () => {
      const accounts = context.fresh<Account>();
      await accounts.ensureIndex({ fields: { email: 1 }, unique: true });
      await accounts.ensureIndex({ fields: { email: 1 }, unique: true });
      await accounts.insertOne({ _id: '1', email: 'a@x' });
      await accounts.insertOne({ _id: '2', email: 'b@x' });
      await expect(accounts.insertOne({ _id: '3', email: 'a@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(
        accounts.findOneAndUpdate({ _id: '2' }, { $set: { email: 'a@x' } }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(accounts.updateMany({ _id: '2' }, { $set: { email: 'a@x' } })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(await accounts.findOne({ _id: '2' })).toMatchObject({ email: 'b@x' });
      expect(await accounts.count({})).toBe(2);
    });

    it('enforces a compound unique index on the combination only', async () => {
      const customers = context.fresh<Account>();
      await customers.ensureIndex({ fields: { project: 1, externalId: 1 }, unique: true });
      await customers.insertOne({ _id: '1', project: 'p1', externalId: 'c1' });
      await customers.insertOne({ _id: '2', project: 'p2', externalId: 'c1' });
      await customers.insertOne({ _id: '3', project: 'p1', externalId: 'c2' });
      await expect(customers.insertOne({ _id: '4', project: 'p1', externalId: 'c1' })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
    });

    it('lets a sparse unique index skip documents without the field', async () => {
      const accounts = context.fresh<Account>();
      await accounts.ensureIndex({ fields: { phone: 1 }, unique: true, sparse: true });
      for (const id of ['1', '2', '3']) await accounts.insertOne({ _id: id });
      await accounts.insertOne({ _id: '4', phone: '+256' });
      await expect(accounts.insertOne({ _id: '5', phone: '+256' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await accounts.count({})).toBe(4);
    });

    it('counts a missing field as one value of a plain unique index, as MongoDB does', async () => {
      const accounts = context.fresh<Account>();
      await accounts.ensureIndex({ fields: { project: 1, externalId: 1 }, unique: true });
      await accounts.insertOne({ _id: '1', project: 'p1' });
      await accounts.insertOne({ _id: '2', project: 'p2' });
      await accounts.insertOne({ _id: '3', project: 'p1', externalId: 'c1' });
      await expect(accounts.insertOne({ _id: '4', project: 'p1' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(
        accounts.findOneAndUpdate({ _id: '3' }, { $unset: { externalId: true } }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await accounts.count({ project: 'p1' })).toBe(2);
    });

    it('finds by a sparse index through only the documents that have the field', async () => {
      const payments = context.fresh<Account>();
      await payments.ensureIndex({ fields: { externalId: 1 }, sparse: true });
      for (let i = 0; i < 20; i += 1)
        await payments.insertOne({ _id: `p${i}`, ...(i < 4 ? { externalId: `k${i % 2}` } : {}) });
      expect(await payments.docsExamined({ externalId: 'k1' })).toBe(2);
      expect((await payments.find({ externalId: 'k1' })).map((doc) => doc._id).sort()).toEqual(['p1', 'p3']);
      expect(await payments.count({ externalId: null })).toBe(16);
    });

    it('reads only the documents an index yields, and every document when none serves', async () => {
      const payments = context.fresh<Account & { status?: string; dueAt?: string }>();
      await payments.ensureIndex({ fields: { dueAt: 1 } });
      for (let i = 0; i < 20; i += 1) {
        const due = i < 3 ? { dueAt: `2020-01-0${i + 1}T00:00:00.000Z` } : {};
        await payments.insertOne({ _id: `p${i}`, status: i < 3 ? 'open' : 'settled', ...due });
      }
      expect(await payments.docsExamined({ dueAt: { $lte: '2020-01-02T00:00:00.000Z' } })).toBe(2);
      expect(await payments.docsExamined({ status: 'open' })).toBe(20);
    });

    it('drops an index it was asked to, once or twice, and answers the same without it', async () => {
      const payments = context.fresh<Account & { status?: string; rank?: number }>();
      const byStatus = { fields: { status: 1, rank: -1 } } as const;
      await payments.ensureIndex(byStatus);
      await payments.ensureIndex({ fields: { rank: 1 } });
      for (let i = 0; i < 20; i += 1)
        await payments.insertOne({ _id: `p${i}`, status: i < 3 ? 'open' : 'settled', rank: i });
      expect(await payments.docsExamined({ status: 'open' })).toBe(3);
      await payments.dropIndex(byStatus);
      await payments.dropIndex(byStatus);
      await payments.dropIndex({ fields: { never: 1 } });
      expect(await payments.docsExamined({ status: 'open' })).toBe(20);
      expect(await payments.docsExamined({ rank: { $gte: 18 } })).toBe(2);
      expect((await payments.find({ status: 'open' }, { sort: { rank: -1 } })).map((p) => p._id)).toEqual([
        'p2',
        'p1',
        'p0',
      ]);
      const search = { fields: { status: 1 }, text: true } as const;
      await payments.ensureIndex(search);
      await payments.dropIndex(search);
      await payments.insertOne({ _id: 'p20', status: 'reopened', rank: 20 });
      expect(await payments.count({ status: { $contains: 'open' } })).toBe(4);
    });

    it('finds Date values by range through a sparse index', async () => {
      const sessions = context.fresh<Account>();
      await sessions.ensureIndex({ fields: { recoverAt: 1 }, sparse: true });
      await sessions.insertOne({ _id: 'due', recoverAt: new Date('2020-01-01T00:00:00Z') });
      await sessions.insertOne({ _id: 'later', recoverAt: new Date('2999-01-01T00:00:00Z') });
      await sessions.insertOne({ _id: 'none' });
      const due = await sessions.find({ recoverAt: { $lte: new Date() } });
      expect(due.map((d) => d._id)).toEqual(['due']);
    });

    it('refuses to create a unique index over duplicates', async () => {
      const accounts = context.fresh<Account>();
      await accounts.insertOne({ _id: '1', email: 'a@x' });
      await accounts.insertOne({ _id: '2', email: 'a@x' });
      await expect(accounts.ensureIndex({ fields: { email: 1 }, unique: true })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
    });

    it('accepts a TTL index and keeps documents that have not expired', async () => {
      const sessions = context.fresh<Account>();
      await sessions.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
      await sessions.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
      await sessions.insertOne({ _id: 's1', expiresAt: new Date(Date.now() + 3_600_000) });
      expect(await sessions.findOne({ _id: 's1' })).not.toBeNull();
      await expect(
        sessions.ensureIndex({ fields: { expiresAt: 1, email: 1 }, expireAfterSeconds: 1 }),
      ).rejects.toThrow(TypeError);
    });
  });

  describe('lifecycle', () => {
    it('answers ping', async () => {
      expect(await context.store().ping()).toBe(true);
    });

    it('keeps documents and unique indexes across close and reopen', async () => {
      const before = context.fresh<Account>();
      await before.ensureIndex({ fields: { email: 1 }, unique: true });
      await before.insertOne({ _id: '1', email: 'a@x', expiresAt: new Date(Date.UTC(2030, 0, 1)) });
      await before.findOneAndUpdate({ _id: '1' }, { $set: { project: 'p1' } });
      await before.insertOne({ _id: '2', email: 'b@x' });
      await before.deleteMany({ _id: '2' });

      const store = await context.reopen();
      const after = store.collection<Account>(before.name);
      expect(await after.find({})).toEqual([
        { _id: '1', email: 'a@x', project: 'p1', expiresAt: new Date(Date.UTC(2030, 0, 1)) },
      ]);
      await expect(after.insertOne({ _id: '3', email: 'a@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await store.ping()).toBe(true);
    });
  });
}
