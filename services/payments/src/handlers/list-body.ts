import type { ListTotal, Page } from '../store/pages.js';

/**
 * A paged list's answer: its items, whether more follow, and the meta every paged list
 * carries (`totalCapped` only when the count stopped at its cap, `page` only when no cursor
 * chose the page).
 */
export function listBody<Item>(
  data: Item[],
  page: Page<unknown> & ListTotal,
  query: { limit: number; page: number },
  cursor: { after?: unknown; before?: unknown },
) {
  const pageMode = !cursor.after && !cursor.before;
  return {
    data,
    has_more: page.hasMore,
    meta: {
      limit: query.limit,
      total: page.total,
      ...(page.totalCapped ? { totalCapped: true as const } : {}),
      ...(pageMode ? { page: query.page } : {}),
    },
  };
}
