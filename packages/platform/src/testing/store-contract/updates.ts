import { describe, expect, it } from 'vitest';
import type { ContractContext } from './context.js';
import { DuplicateKeyError, type Doc } from '../../store/port.js';

type Payment = Doc & {
  status: string;
  amount?: number;
  note?: string;
  attempts?: number;
  events?: (string | { id: string })[];
  meta?: { provider?: string; key?: string };
  project?: string;
};

export function describeUpdateContract(context: ContractContext): void {
  async function withPayment(extra: Partial<Payment> = {}) {
    const collection = context.fresh<Payment>();
    await collection.insertOne({ _id: 'p1', status: 'pending', amount: 100, ...extra });
    return collection;
  }

  describe('findOneAndUpdate', () => {
    it('is a compare-and-set: the first guarded transition wins, the second finds nothing', async () => {
      const payments = await withPayment();
      const first = await payments.findOneAndUpdate(
        { _id: 'p1', status: 'pending' },
        { $set: { status: 'succeeded' } },
      );
      expect(first).toEqual({ _id: 'p1', status: 'succeeded', amount: 100 });
      const second = await payments.findOneAndUpdate(
        { _id: 'p1', status: 'pending' },
        { $set: { status: 'failed' } },
      );
      expect(second).toBeNull();
      expect(await payments.findOne({ _id: 'p1' })).toMatchObject({ status: 'succeeded' });
    });

    it('lets exactly one of 50 concurrent transitions win', async () => {
      const payments = await withPayment({ attempts: 0 });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          payments.findOneAndUpdate(
            { _id: 'p1', status: 'pending' },
            { $set: { status: `done-${i}` }, $inc: { attempts: 1 } },
          ),
        ),
      );
      const winners = results.filter((doc) => doc !== null);
      expect(winners).toHaveLength(1);
      expect(await payments.findOne({ _id: 'p1' })).toEqual(winners[0]);
      expect(winners[0]?.attempts).toBe(1);
    });

    it('applies $set on dotted fields, $inc, $unset, $push $each and $pull', async () => {
      const payments = await withPayment({
        note: 'x',
        events: ['a', 'b', 'a', 'c'],
        meta: { provider: 'mtn' },
      });
      const after = await payments.findOneAndUpdate(
        { _id: 'p1' },
        {
          $set: { 'meta.key': 'k' },
          $inc: { amount: -30, attempts: 2 },
          $unset: { note: true },
          $pull: { events: 'a' },
        },
      );
      expect(after).toEqual({
        _id: 'p1',
        status: 'pending',
        amount: 70,
        attempts: 2,
        events: ['b', 'c'],
        meta: { provider: 'mtn', key: 'k' },
      });
      const pushed = await payments.findOneAndUpdate(
        { _id: 'p1' },
        { $push: { events: { $each: [{ id: 'e1' }, { id: 'e2' }] } } },
      );
      expect(pushed?.events).toEqual(['b', 'c', { id: 'e1' }, { id: 'e2' }]);
      const pulled = await payments.findOneAndUpdate(
        { _id: 'p1', 'events.id': 'e1' },
        { $pull: { events: { id: 'e1' } } },
      );
      expect(pulled?.events).toEqual(['b', 'c', { id: 'e2' }]);
      expect(
        await payments.findOneAndUpdate(
          { _id: 'p1', 'events.id': 'e1' },
          { $pull: { events: { id: 'e1' } } },
        ),
      ).toBeNull();
      const created = await payments.findOneAndUpdate({ _id: 'p1' }, { $push: { tags: { $each: ['new'] } } });
      expect(created).toMatchObject({ tags: ['new'] });
    });

    it('returns null and writes nothing when nothing matches', async () => {
      const payments = await withPayment();
      expect(await payments.findOneAndUpdate({ _id: 'nope' }, { $set: { status: 'x' } })).toBeNull();
      expect(await payments.count({})).toBe(1);
    });

    it('refuses an update without operators', async () => {
      const payments = await withPayment();
      await expect(payments.findOneAndUpdate({ _id: 'p1' }, {})).rejects.toThrow(TypeError);
      expect(await payments.findOne({ _id: 'p1' })).toMatchObject({ status: 'pending' });
    });
  });

  describe('upsert', () => {
    it('inserts the equality fields of the filter plus the update, with a string _id', async () => {
      const counters = context.fresh<Payment>();
      const doc = await counters.findOneAndUpdate(
        { project: 'pr1', 'meta.provider': 'mtn', amount: { $gte: 0 } },
        { $set: { status: 'open' }, $inc: { attempts: 1 } },
        { upsert: true },
      );
      expect(doc).toMatchObject({ project: 'pr1', meta: { provider: 'mtn' }, status: 'open', attempts: 1 });
      expect(doc).not.toHaveProperty('amount');
      expect(typeof doc?._id).toBe('string');
      expect(await counters.findOne({ _id: doc?._id as string })).toEqual(doc);
    });

    it('updates the document when it exists, and keeps the given _id when it does not', async () => {
      const counters = context.fresh<Payment>();
      const created = await counters.findOneAndUpdate(
        { _id: 'k' },
        { $set: { status: 'open' }, $inc: { attempts: 1 } },
        { upsert: true },
      );
      expect(created).toEqual({ _id: 'k', status: 'open', attempts: 1 });
      const updated = await counters.findOneAndUpdate(
        { _id: 'k' },
        { $inc: { attempts: 1 } },
        { upsert: true },
      );
      expect(updated).toEqual({ _id: 'k', status: 'open', attempts: 2 });
      expect(await counters.count({})).toBe(1);
    });

    it('counts every one of 20 concurrent upserts on the same _id once', async () => {
      const counters = context.fresh<Payment>();
      await Promise.all(
        Array.from({ length: 20 }, () =>
          counters.findOneAndUpdate(
            { _id: 'k' },
            { $set: { status: 'open' }, $inc: { attempts: 1 } },
            { upsert: true },
          ),
        ),
      );
      expect(await counters.find({})).toEqual([{ _id: 'k', status: 'open', attempts: 20 }]);
    });

    it('reports a duplicate key when the guard fails on an existing _id', async () => {
      const payments = await withPayment();
      const upsert = payments.findOneAndUpdate(
        { _id: 'p1', status: 'failed' },
        { $set: { amount: 1 } },
        { upsert: true },
      );
      await expect(upsert).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await payments.findOne({ _id: 'p1' })).toMatchObject({ amount: 100 });
    });
  });

  describe('updateMany and deleteMany', () => {
    it('return how many documents they matched and removed', async () => {
      const payments = context.fresh<Payment>();
      for (const [id, status] of [
        ['1', 'pending'],
        ['2', 'pending'],
        ['3', 'succeeded'],
      ]) {
        await payments.insertOne({ _id: id as string, status: status as string });
      }
      expect(await payments.updateMany({ status: 'pending' }, { $set: { status: 'expired' } })).toBe(2);
      expect(await payments.updateMany({ status: 'pending' }, { $set: { status: 'expired' } })).toBe(0);
      expect(await payments.count({ status: 'expired' })).toBe(2);
      expect(await payments.deleteMany({ status: { $in: ['expired', 'nope'] } })).toBe(2);
      expect(await payments.deleteMany({ status: 'expired' })).toBe(0);
      expect((await payments.find({})).map((doc) => doc._id)).toEqual(['3']);
    });
  });
}
