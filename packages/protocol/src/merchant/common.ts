import { z } from 'zod';
import { AMOUNT_RANGE_MESSAGE, MAX_AMOUNT, MIN_AMOUNT } from '../money.js';

/** Timestamps we emit are UTC (`toISOString()`); inputs may carry any offset. */
export const DateTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z',
});
export type DateTime = z.infer<typeof DateTime>;

export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
export type HttpUrl = z.infer<typeof HttpUrl>;

export const Email = z.email({ error: 'must be a valid e-mail address' }).max(254);

export const METADATA_MAX_KEYS = 50;
/** Flat on purpose: merchants search and display it; nested objects would make both harder. */
export const Metadata = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
  .refine(
    (value) => Object.keys(value).length <= METADATA_MAX_KEYS,
    `metadata may have at most ${METADATA_MAX_KEYS} keys`,
  );
export type Metadata = z.infer<typeof Metadata>;

/**
 * An integer query parameter: arrives as a string over HTTP but as a number from
 * internal callers. Plain z.coerce would turn '' into 0 and 'abc' into NaN silently.
 */
export function queryInt(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  const message =
    max === Number.MAX_SAFE_INTEGER
      ? `${name} must be an integer of at least ${min}`
      : `${name} must be an integer between ${min} and ${max}`;
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?[0-9]{1,16}$/)
          .transform(Number),
      ],
      { error: message },
    )
    .pipe(z.number().int(message).min(min, message).max(max, message));
}

/**
 * A decimal query parameter (`minAmount=99.5`), finite and at least `min`: a string over
 * HTTP, a number from internal callers. Plain decimals only, so '', 'abc', '1e3', 'Infinity'
 * and '0x10' are refused rather than read as something else.
 */
export function queryNumber(name: string, min: number) {
  const message = `${name} must be a number of at least ${min}`;
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?(?:[0-9]{1,16}(?:\.[0-9]{1,16})?|\.[0-9]{1,16})$/)
          .transform(Number),
      ],
      { error: message },
    )
    .pipe(z.number(message).min(min, message));
}

/** `expand[]=a&expand[]=b`, `expand=a,b` or an array: all mean the same list. */
export function listParam<T extends z.ZodType>(item: T) {
  const split = (value: unknown): unknown => {
    const list = typeof value === 'string' ? value.split(',') : value;
    return Array.isArray(list)
      ? list.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '')
      : list;
  };
  return z.preprocess(split, z.array(item));
}

/**
 * A list counts its matches no further than this, so a page costs the same with ten thousand
 * items as with a million; beyond it a merchant pages with cursors (see docs/decisions.md).
 */
export const LIST_TOTAL_CAP = 10_000;

/**
 * A list answer in the payments list's form: a page of `item`, whether more follow, and how
 * many match, counted up to LIST_TOTAL_CAP.
 */
export function pagedList<Item extends z.ZodType>(item: Item) {
  return z.strictObject({
    data: z.array(item),
    has_more: z.boolean(),
    meta: z.strictObject({
      limit: z.number().int(),
      total: z.number().int().nonnegative(),
      /** Present (true) when more than LIST_TOTAL_CAP match: `total` is then the cap. */
      totalCapped: z.literal(true).optional(),
      /** Only in page mode (no cursor given). */
      page: z.number().int().positive().optional(),
    }),
  });
}

type PagingQuery = { limit: number; page: number; starting_after?: string; ending_before?: string };

/**
 * How a paged list's query pages: one way at a time (`starting_after` or `ending_before`,
 * never both), and a numbered page starts within the LIST_TOTAL_CAP `items` the total
 * counts. Reaching a page means reading every item before it, so a deeper one would cost
 * with the history; cursors go on from where they point at the cost of one page.
 */
export function checkPaging(items: string) {
  return (query: PagingQuery, ctx: z.RefinementCtx): void => {
    if (query.starting_after && query.ending_before) {
      ctx.addIssue({
        code: 'custom',
        path: ['ending_before'],
        message: 'give starting_after or ending_before, not both',
      });
    }
    const cursor = query.starting_after !== undefined || query.ending_before !== undefined;
    if (!cursor && (query.page - 1) * query.limit >= LIST_TOTAL_CAP) {
      ctx.addIssue({
        code: 'custom',
        path: ['page'],
        message: `page must start within the first ${LIST_TOTAL_CAP} ${items} (at most page ${Math.ceil(LIST_TOTAL_CAP / query.limit)} with limit ${query.limit}); read further with starting_after`,
      });
    }
  };
}

/** Message for a missing field, distinguishable by classifiers (see isMissingIssue). */
export function requiredMessage(name: string): string {
  return `${name} is required`;
}

/** Whole francs within the API's limits; messages name the limits. */
export const ApiAmount = z
  .number({
    error: (issue) => (issue.input === undefined ? requiredMessage('amount') : AMOUNT_RANGE_MESSAGE),
  })
  .int(AMOUNT_RANGE_MESSAGE)
  .min(MIN_AMOUNT, AMOUNT_RANGE_MESSAGE)
  .max(MAX_AMOUNT, AMOUNT_RANGE_MESSAGE);
