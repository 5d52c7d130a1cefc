import { describe, expect, it } from 'vitest';
import type { ContractContext } from './context.js';
import { DuplicateKeyError, type Doc, type Filter } from '../../store/port.js';

type Item = Doc & {
  n?: number | null;
  name?: string;
  tags?: string[];
  meta?: { kind: string; level?: number };
  lines?: { sku: string }[];
  at?: Date;
};

const day = (d: number) => new Date(Date.UTC(2024, 0, d));

const items: Item[] = [
  {
    _id: 'a',
    n: 1,
    name: 'Alpha a.b( one',
    tags: ['x', 'y'],
    meta: { kind: 'k1', level: 1 },
    lines: [{ sku: 's1' }],
    at: day(1),
  },
  {
    _id: 'b',
    n: 2,
    name: 'beta axb( two',
    tags: ['y'],
    meta: { kind: 'k2' },
    lines: [{ sku: 's2' }, { sku: 's3' }],
    at: day(2),
  },
  { _id: 'c', n: 3, name: 'GAMMA A.B( three', tags: [], meta: { kind: 'k1', level: 3 }, at: day(3) },
  { _id: 'd', n: null, name: 'delta' },
  { _id: 'e' },
];

export function describeQueryContract(context: ContractContext): void {
  async function seeded() {
    const collection = context.fresh<Item>();
    for (const item of items) await collection.insertOne(item);
    return collection;
  }

  async function ids(filter: Filter) {
    const collection = await seeded();
    return (await collection.find(filter, { sort: { _id: 1 } })).map((doc) => doc._id);
  }

  describe('insert and read', () => {
    it('returns what was inserted, _id and Dates included', async () => {
      const collection = context.fresh<Item>();
      await collection.insertOne({ _id: 'one', n: 1, at: day(5), meta: { kind: 'k' } });
      const doc = await collection.findOne({ _id: 'one' });
      expect(doc).toEqual({ _id: 'one', n: 1, at: day(5), meta: { kind: 'k' } });
      expect(doc?.at).toBeInstanceOf(Date);
      expect(await collection.findOne({ _id: 'missing' })).toBeNull();
    });

    it('refuses a second document with the same _id', async () => {
      const collection = context.fresh<Item>();
      await collection.insertOne({ _id: 'same', n: 1 });
      const error = await collection.insertOne({ _id: 'same', n: 2 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect((error as DuplicateKeyError).collection).toBe(collection.name);
      expect(await collection.findOne({ _id: 'same' })).toMatchObject({ n: 1 });
    });

    it('counts', async () => {
      const collection = await seeded();
      expect(await collection.count({})).toBe(5);
      expect(await collection.count({ 'meta.kind': 'k1' })).toBe(2);
    });

    it('counts no further than a limit', async () => {
      const collection = await seeded();
      expect(await collection.count({}, { limit: 3 })).toBe(3);
      expect(await collection.count({ 'meta.kind': 'k1' }, { limit: 3 })).toBe(2);
      expect(await collection.count({}, { limit: 5 })).toBe(5);
    });
  });

  describe('find options', () => {
    it('sorts on several keys, then skips and limits', async () => {
      const collection = context.fresh<Doc & { createdAt: Date }>();
      for (const [id, d] of [
        ['p', 1],
        ['q', 2],
        ['r', 2],
        ['s', 3],
        ['t', 2],
      ] as const) {
        await collection.insertOne({ _id: id, createdAt: day(d) });
      }
      const page = async (skip: number, limit: number) =>
        (await collection.find({}, { sort: { createdAt: -1, _id: -1 }, skip, limit })).map((doc) => doc._id);
      expect(await page(0, 10)).toEqual(['s', 't', 'r', 'q', 'p']);
      expect(await page(1, 2)).toEqual(['t', 'r']);
      expect(await page(4, 2)).toEqual(['p']);
      expect(
        (await collection.find({ createdAt: day(2) }, { sort: { _id: 1 }, limit: 2 })).map((d) => d._id),
      ).toEqual(['q', 'r']);
    });
  });

  describe('filters', () => {
    it('matches equality, dotted fields and array elements', async () => {
      expect(await ids({ n: 2 })).toEqual(['b']);
      expect(await ids({ 'meta.kind': 'k1' })).toEqual(['a', 'c']);
      expect(await ids({ 'meta.kind': 'k1', 'meta.level': 3 })).toEqual(['c']);
      expect(await ids({ 'lines.sku': 's3' })).toEqual(['b']);
      expect(await ids({ tags: 'y' })).toEqual(['a', 'b']);
      expect(await ids({})).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    it('applies every comparison operator', async () => {
      expect(await ids({ n: { $eq: 2 } })).toEqual(['b']);
      expect(await ids({ n: { $ne: 2 } })).toEqual(['a', 'c', 'd', 'e']);
      expect(await ids({ n: { $in: [1, 3, 7] } })).toEqual(['a', 'c']);
      expect(await ids({ n: { $nin: [1, 3] } })).toEqual(['b', 'd', 'e']);
      expect(await ids({ n: { $gt: 1 } })).toEqual(['b', 'c']);
      expect(await ids({ n: { $gte: 2 } })).toEqual(['b', 'c']);
      expect(await ids({ n: { $lt: 3 } })).toEqual(['a', 'b']);
      expect(await ids({ n: { $lte: 1 } })).toEqual(['a']);
      expect(await ids({ n: { $gte: 2, $lt: 3 } })).toEqual(['b']);
      expect(await ids({ 'meta.level': { $exists: true } })).toEqual(['a', 'c']);
      expect(await ids({ meta: { $exists: false } })).toEqual(['d', 'e']);
    });

    it('treats a missing field as null, the way MongoDB does', async () => {
      expect(await ids({ n: null })).toEqual(['d', 'e']);
      expect(await ids({ n: { $eq: null } })).toEqual(['d', 'e']);
      expect(await ids({ n: { $ne: null } })).toEqual(['a', 'b', 'c']);
      expect(await ids({ n: { $in: [null, 2] } })).toEqual(['b', 'd', 'e']);
      expect(await ids({ n: { $nin: [null, 2] } })).toEqual(['a', 'c']);
    });

    it('compares Dates', async () => {
      expect(await ids({ at: { $gt: day(1) } })).toEqual(['b', 'c']);
      expect(await ids({ at: { $gte: day(1), $lt: day(3) } })).toEqual(['a', 'b']);
      expect(await ids({ at: { $lte: day(1) } })).toEqual(['a']);
      expect(await ids({ at: day(2) })).toEqual(['b']);
    });

    it('matches $contains as a literal, case-insensitive substring', async () => {
      expect(await ids({ name: { $contains: 'a.b(' } })).toEqual(['a', 'c']);
      expect(await ids({ name: { $contains: 'BETA' } })).toEqual(['b']);
      expect(await ids({ name: { $contains: '.*' } })).toEqual([]);
      expect(await ids({ n: { $contains: '1' } })).toEqual([]);
    });

    it('answers $contains the same through a text index, and keeps it through writes', async () => {
      const collection = await seeded();
      await collection.ensureIndex({ fields: { name: 1, 'meta.kind': 1 }, text: true });
      const names = async (filter: Filter) =>
        (await collection.find(filter, { sort: { _id: 1 } })).map((doc) => doc._id);
      expect(await names({ name: { $contains: 'a.b(' } })).toEqual(['a', 'c']);
      expect(await names({ name: { $contains: 'BETA' } })).toEqual(['b']);
      expect(await names({ name: { $contains: 'ta' } })).toEqual(['b', 'd']);
      expect(await names({ name: { $contains: 'a "quoted" b' } })).toEqual([]);
      expect(
        await names({ $or: [{ name: { $contains: 'two' } }, { 'meta.kind': { $contains: 'K1' } }] }),
      ).toEqual(['a', 'b', 'c']);
      await collection.insertOne({ _id: 'f', name: 'Epsilon "quoted" six' });
      await collection.findOneAndUpdate({ _id: 'b' }, { $set: { name: 'renamed' } });
      await collection.deleteMany({ _id: 'a' });
      expect(await names({ name: { $contains: 'a.b(' } })).toEqual(['c']);
      expect(await names({ name: { $contains: 'beta' } })).toEqual([]);
      expect(await names({ name: { $contains: 'RENAMED' } })).toEqual(['b']);
      expect(await names({ name: { $contains: '"quoted"' } })).toEqual(['f']);
      expect(await collection.count({ name: { $contains: 'six' } })).toBe(1);
    });

    it('pages a search as a list does: beside other conditions, sorted, skipped, limited and counted', async () => {
      const collection = context.fresh<Item>();
      await collection.ensureIndex({ fields: { name: 1, 'meta.kind': 1 }, text: true });
      for (let i = 0; i < 12; i += 1) {
        await collection.insertOne({
          _id: `d${String(i).padStart(2, '0')}`,
          n: i % 3,
          name: i % 2 ? `Shop ${i}` : `other ${i}`,
          meta: { kind: i === 4 ? 'shopfront' : 'kiosk' },
        });
      }
      const search = { $or: [{ name: { $contains: 'SHOP' } }, { 'meta.kind': { $contains: 'shop' } }] };
      const listed = { $and: [{ n: { $gte: 1 } }, search] };
      const page = async (skip: number) =>
        (await collection.find(listed, { sort: { _id: -1 }, skip, limit: 2 })).map((doc) => doc._id);
      // Shop 1, 5, 7 and 11 have n >= 1, and so has the shopfront (4); Shop 3 and 9 have n 0.
      expect(await page(0)).toEqual(['d11', 'd07']);
      expect(await page(2)).toEqual(['d05', 'd04']);
      expect(await page(4)).toEqual(['d01']);
      expect(await collection.count(listed)).toBe(5);
      expect(await collection.count(listed, { limit: 3 })).toBe(3);
      expect((await collection.findOne(listed))?._id).toMatch(/^d(01|04|05|07|11)$/);
      // Two searches must both hold; a search under an $or holds or not beside its sibling.
      const both = { $and: [search, { name: { $contains: '1' } }] };
      expect((await collection.find(both, { sort: { _id: 1 }, limit: 5 })).map((doc) => doc._id)).toEqual([
        'd01',
        'd11',
      ]);
      const either = { $or: [search, { n: 0 }] };
      expect(await collection.count(either, { limit: 20 })).toBe(9);
    });

    it('sums a numeric field over what matches, counting what is no number as nothing', async () => {
      const collection = await seeded();
      // n is 1, 2 and 3 on a, b and c, null on d and missing on e.
      expect(await collection.sum({}, 'n')).toBe(6);
      expect(await collection.sum({ 'meta.kind': 'k1' }, 'n')).toBe(4);
      expect(await collection.sum({ 'meta.level': { $gte: 1 } }, 'meta.level')).toBe(4);
      expect(await collection.sum({ _id: 'd' }, 'n')).toBe(0);
      expect(await collection.sum({ _id: 'nothing' }, 'n')).toBe(0);
      expect(await collection.sum({}, 'name')).toBe(0);
      await collection.insertOne({ _id: 'f', n: 0.5 });
      expect(await collection.sum({ n: { $lt: 2 } }, 'n')).toBe(1.5);
    });

    it('combines with $or and $and', async () => {
      expect(await ids({ $or: [{ n: 1 }, { 'meta.kind': 'k2' }] })).toEqual(['a', 'b']);
      expect(await ids({ 'meta.kind': 'k1', $or: [{ n: 1 }, { n: 2 }] })).toEqual(['a']);
      expect(
        await ids({ $and: [{ n: { $gte: 1 } }, { n: { $lte: 2 } }], $or: [{ tags: 'x' }, { tags: 'y' }] }),
      ).toEqual(['a', 'b']);
      expect(
        await ids({ $or: [{ name: { $contains: 'alpha' } }, { name: { $contains: 'delta' } }], n: null }),
      ).toEqual(['d']);
    });

    it('refuses what the port does not promise', async () => {
      const collection = context.fresh<Item>();
      await expect(collection.find({ name: { $regex: 'a' } })).rejects.toThrow(TypeError);
      await expect(collection.find({ $where: 'true' } as Filter)).rejects.toThrow(TypeError);
      await expect(collection.find({ n: undefined })).rejects.toThrow(TypeError);
    });
  });
}
