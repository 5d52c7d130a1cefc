import type { Collection, Doc, Filter } from '@mmp/platform';
import { LIST_TOTAL_CAP } from '@mmp/protocol';

/** What a list sorts by, newest first: its creation time, then its id for the ties. */
export type ListedItem = Doc & { createdAt: string; id: string };

/** The item a cursor names: the page starts after it, or ends before it. */
export type PageCursor<T extends ListedItem> = { after?: T; before?: T };

export type Page<T> = { items: T[]; hasMore: boolean };

/** How many items a list matches, counted no further than its cap (LIST_TOTAL_CAP). */
export type ListTotal = { total: number; totalCapped: boolean };

/**
 * Counts `filter`'s matches up to `cap`: one more than the cap tells "exactly the cap" from
 * "more than the cap", and a count that stops there costs the same with a million items.
 */
export async function countCapped<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  cap = LIST_TOTAL_CAP,
): Promise<ListTotal> {
  const counted = await collection.count(filter, { limit: cap + 1 });
  return { total: Math.min(counted, cap), totalCapped: counted > cap };
}

/**
 * Items listed after `item` (older). The range on `createdAt` alone is what an index on
 * (scope, createdAt, id) can seek into, so a cursor page reads from the cursor on; said
 * only as "older, or as old with a smaller id", the same question has the engine walk the
 * scope from its newest item (78 ms instead of 0.3 at the middle of a million payments).
 */
export function listedAfter(item: ListedItem): Filter {
  return {
    $and: [
      { createdAt: { $lte: item.createdAt } },
      { $or: [{ createdAt: { $lt: item.createdAt } }, { id: { $lt: item.id } }] },
    ],
  };
}

/** Items listed before `item` (newer), sought the same way from the other side. */
export function listedBefore(item: ListedItem): Filter {
  return {
    $and: [
      { createdAt: { $gte: item.createdAt } },
      { $or: [{ createdAt: { $gt: item.createdAt } }, { id: { $gt: item.id } }] },
    ],
  };
}

const NEWEST_FIRST = { createdAt: -1, id: -1 } as const;
const OLDEST_FIRST = { createdAt: 1, id: 1 } as const;

/**
 * One page of `base`, newest first: after or before a cursor's item, or else by number (page 1
 * first). `hasMore` says whether the list goes on past the page in its reading direction.
 */
export async function readPage<T extends ListedItem>(
  collection: Collection<T>,
  base: Filter,
  cursor: PageCursor<T>,
  { limit, page }: { limit: number; page: number },
): Promise<Page<T>> {
  if (cursor.after) {
    const filter = { $and: [base, listedAfter(cursor.after)] };
    const rows = await collection.find(filter, { sort: NEWEST_FIRST, limit: limit + 1 });
    return { items: rows.slice(0, limit), hasMore: rows.length > limit };
  }
  if (cursor.before) {
    const filter = { $and: [base, listedBefore(cursor.before)] };
    const rows = await collection.find(filter, { sort: OLDEST_FIRST, limit: limit + 1 });
    return { items: rows.slice(0, limit).reverse(), hasMore: rows.length > limit };
  }
  const rows = await collection.find(base, {
    sort: NEWEST_FIRST,
    skip: (page - 1) * limit,
    limit: limit + 1,
  });
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
