import { z } from 'zod';
import { appError } from '@mmp/protocol';

export const SORT_FIELDS = ['lastTransactionAt', 'createdAt', 'totalSpent', 'totalTransactions', 'name'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

const positiveInt = (max?: number) => {
  const base = z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(max ? z.number().int().min(1).max(max) : z.number().int().min(1));
  return base;
};

const Paging = {
  page: positiveInt().optional().default(1),
  per_page: positiveInt(100).optional().default(20),
};

export const ListQuery = z.object({
  ...Paging,
  search: z.string().trim().max(200).optional(),
  sort_by: z.enum(SORT_FIELDS).optional().default('lastTransactionAt'),
  sort_order: z.enum(['asc', 'desc']).optional().default('desc'),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const PageQuery = z.object(Paging);
export type PageQuery = z.infer<typeof PageQuery>;

type RawQuery = Record<string, string | string[]>;

/**
 * Parses query parameters; a repeated parameter or a bad value is a 400 naming it.
 * Unknown parameters are ignored, as merchants' tools often add their own.
 */
export function parseQuery<S extends z.ZodType>(schema: S, raw: RawQuery): z.infer<S> {
  const repeated = Object.entries(raw).find(([, value]) => Array.isArray(value));
  if (repeated) {
    throw appError('invalid_request', `Query parameter '${repeated[0]}' must be given once.`, [
      { field: repeated[0], message: 'must be given once' },
    ]);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({
    field: String(issue.path[0] ?? 'query'),
    message: issue.message,
  }));
  const first = fields[0]!;
  throw appError('invalid_request', `Invalid query parameter '${first.field}': ${first.message}.`, fields);
}

/** The envelope meta of a page: `total_pages` is 0 when there is nothing at all. */
export function pageMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
