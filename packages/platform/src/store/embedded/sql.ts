import type { Filter, Sort } from '../port.js';
import { isOperatorObject } from '../translate.js';
import { columnOf, encodeValue, sqlValue, TAG, tagEnd } from './codec.js';

/**
 * Compiles the port's filter language to a SQLite WHERE clause over the tagged JSON of
 * codec.ts. Every condition on a plain path becomes a comparison of `data ->> '$."path"'`
 * (`side ->> …` for the outbox's fields, see codec.ts),
 * the very expression the collection's indexes are built on, so SQLite answers it from an
 * index where one exists. A condition SQL cannot state exactly (a path that has held an
 * array, a sub-document operand) is handed to the JavaScript matcher through `mmp_match`.
 */

/**
 * The clause itself, and, when a text search drives the read, the FROM that joins its
 * matches to the collection: its parameters come before the clause's.
 */
export type Compiled = { sql: string; params: unknown[]; from?: { sql: string; params: unknown[] } };

/**
 * How a text search every answer must meet is read:
 * - `drive`: from the trigram index's matches, each document looked up (few matches);
 * - `index`: as a list of the matches, tested beside whatever index reads the rest;
 * - `scan`: by the exact test alone on the documents the rest reads (the needle is so common
 *   that a limited read finds its page before the list of matches would be made).
 */
export type TextPlan = 'drive' | 'index' | 'scan';

export type FilterContext = {
  /** The collection's table (quoted): its rowid beside a joined text search. */
  table: string;
  /** True when `path` or a path above it has held an array in this collection. */
  crossesArray(path: string): boolean;
  /** The FTS5 table and column of a trigram index on `path`, if one was declared. */
  textIndex(path: string): { table: string; column: string } | undefined;
  /** How to read a search every answer must meet (FTS5 query `query`); unset, `index`. */
  textPlan?(ftsTable: string, query: string): TextPlan;
};

/** FTS5's trigram tokenizer matches needles of three characters and more. */
const TRIGRAM = 3;

/** An FTS5 query for `text` as one phrase in one column: quotes inside are doubled. */
function phraseIn(column: string, text: string): string {
  return `${column} : "${text.replaceAll('"', '""')}"`;
}

/** The SQL expression of a document field; `_id` is its own column. */
export function fieldExpression(path: string): string {
  if (path === '_id') return '_id';
  const segments = path.split('.');
  for (const segment of segments) {
    if (segment === '' || /["'\\]/.test(segment)) throw new TypeError(`unsupported field name ${path}`);
  }
  return `(${columnOf(path)} ->> '$.${segments.map((s) => `"${s}"`).join('.')}')`;
}

function jsonPath(path: string): string {
  return `'$.${path
    .split('.')
    .map((s) => `"${s}"`)
    .join('.')}'`;
}

const isScalar = (value: unknown) =>
  value === null || value instanceof Date || (typeof value !== 'object' && typeof value !== 'function');

/** The tag range of a value's type, or null for numbers (below every text in SQLite). */
function tagOf(value: unknown): string | null | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? null : undefined;
  if (typeof value === 'string') return TAG.string;
  if (value instanceof Date) return TAG.date;
  if (typeof value === 'boolean') return TAG.boolean;
  return undefined;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

class Builder {
  readonly params: unknown[] = [];
  /** The text search the read is driven from, if one is. */
  driver?: { ftsTable: string; query: string };
  constructor(private readonly context: FilterContext) {}

  bind(value: unknown): string {
    this.params.push(value);
    return '?';
  }

  /** `required`: every answer must meet this filter (it is not under an `$or`). */
  filter(filter: Filter, required = true): string {
    const parts: string[] = [];
    for (const [key, value] of Object.entries(filter)) {
      const search = key === '$or' ? this.textSearch(value as Filter[], required) : undefined;
      if (search) parts.push(search);
      else if (key === '$or' || key === '$and') {
        const subs = (value as Filter[]).map((sub) => this.filter(sub, required && key === '$and'));
        parts.push(`(${subs.join(key === '$or' ? ' OR ' : ' AND ')})`);
      } else parts.push(this.field(key, value, required));
    }
    return parts.length === 0 ? '1' : parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
  }

  /**
   * A text search: the trigram index narrows to its candidates, the exact test (`exact`, built
   * after the plan so its parameters follow the MATCH's) keeps the answer what it would be
   * without the index (FTS5 folds case on its own terms). Only a search every answer must
   * meet can drive the read or be left to the exact test; one read is driven by one search.
   */
  private textTerm(ftsTable: string, query: string, required: boolean, exact: () => string): string {
    const asked = required && !this.driver ? this.context.textPlan?.(ftsTable, query) : undefined;
    const plan = asked ?? 'index';
    if (plan === 'drive') this.driver = { ftsTable, query };
    if (plan !== 'index') return exact();
    const match = this.bind(query);
    return `(${this.context.table}.rowid IN (SELECT rowid FROM ${ftsTable} WHERE ${ftsTable} MATCH ${match}) AND ${exact()})`;
  }

  /**
   * An `$or` of one needle `$contains`-ed in several fields of one trigram index (a search
   * box over a few fields) becomes one MATCH over those columns, a single search that can
   * drive the read; per-branch MATCHes would leave SQLite walking the table.
   */
  private textSearch(branches: Filter[], required: boolean): string | undefined {
    const terms = branches.map((branch) => {
      const entries = Object.entries(branch);
      if (entries.length !== 1) return undefined;
      const [path, condition] = entries[0] as [string, unknown];
      if (!isOperatorObject(condition) || Object.keys(condition).length !== 1) return undefined;
      const text = (condition as { $contains?: unknown }).$contains;
      const index = this.context.textIndex(path);
      if (typeof text !== 'string' || !index || this.context.crossesArray(path)) return undefined;
      return { path, text, index };
    });
    const first = terms[0];
    if (!first || [...first.text].length < TRIGRAM) return undefined;
    const same = (term: (typeof terms)[number]) =>
      term !== undefined && term.text === first.text && term.index.table === first.index.table;
    if (!terms.every(same)) return undefined;
    const columns = `{${terms.map((term) => term!.index.column).join(' ')}}`;
    return this.textTerm(first.index.table, phraseIn(columns, first.text), required, () => {
      const exact = terms.map((term) => this.exactContains(fieldExpression(term!.path), first.text));
      return `(${exact.join(' OR ')})`;
    });
  }

  private fallback(path: string, condition: unknown): string {
    return `mmp_match(json(${columnOf(path)}), ${this.bind(JSON.stringify(encodeValue({ [path]: condition })))})`;
  }

  private field(path: string, condition: unknown, required: boolean): string {
    const x = fieldExpression(path);
    if (path !== '_id' && this.context.crossesArray(path)) return this.fallback(path, condition);
    if (!isOperatorObject(condition)) {
      return isScalar(condition) ? this.equality(x, condition) : this.fallback(path, condition);
    }
    const parts: string[] = [];
    for (const [op, operand] of Object.entries(condition)) {
      const sql = this.operator(path, x, op, operand, required);
      if (sql === undefined) return this.fallback(path, condition);
      parts.push(sql);
    }
    return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
  }

  private equality(x: string, value: unknown): string {
    return value === null ? `${x} IS NULL` : `${x} = ${this.bind(sqlValue(value))}`;
  }

  private membership(x: string, values: unknown[]): string {
    const others = values.filter((v) => v !== null);
    const list = `${x} IN (${others.map((v) => this.bind(sqlValue(v))).join(', ')})`;
    if (others.length === values.length) return others.length === 0 ? '0' : list;
    return others.length === 0 ? `${x} IS NULL` : `(${x} IS NULL OR ${list})`;
  }

  /** undefined: not expressible here, the caller falls back to the matcher. */
  private operator(
    path: string,
    x: string,
    op: string,
    operand: unknown,
    required: boolean,
  ): string | undefined {
    switch (op) {
      case '$eq':
        return isScalar(operand) ? this.equality(x, operand) : undefined;
      case '$ne':
        if (!isScalar(operand)) return undefined;
        return operand === null ? `${x} IS NOT NULL` : `${x} IS NOT ${this.bind(sqlValue(operand))}`;
      case '$in':
        return (operand as unknown[]).every(isScalar) ? this.membership(x, operand as unknown[]) : undefined;
      case '$nin':
        // NOT of $in, two-valued: a missing field (NULL) is "not in" unless null is listed.
        return (operand as unknown[]).every(isScalar)
          ? `NOT ifnull(${this.membership(x, operand as unknown[])}, 0)`
          : undefined;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return this.range(x, op, operand);
      case '$exists':
        if (path === '_id') return operand ? '1' : '0';
        return `json_type(${columnOf(path)}, ${jsonPath(path)}) IS ${operand ? 'NOT ' : ''}NULL`;
      case '$contains':
        return this.contains(path, x, operand as string, required);
      default:
        return undefined;
    }
  }

  private range(x: string, op: string, operand: unknown): string | undefined {
    const tag = tagOf(operand);
    if (tag === undefined) return undefined;
    const sign = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op] as string;
    const bound = `${x} ${sign} ${this.bind(sqlValue(operand))}`;
    const upward = op === '$gt' || op === '$gte';
    // Numbers sort below every text: "above n" stops before the first text.
    if (tag === null) return upward ? `(${bound} AND ${x} < '')` : bound;
    return upward ? `(${bound} AND ${x} < '${tagEnd(tag)}')` : `(${bound} AND ${x} >= '${tag}')`;
  }

  private contains(path: string, x: string, text: string, required: boolean): string {
    const index = this.context.textIndex(path);
    if (!index || [...text].length < TRIGRAM) return this.exactContains(x, text);
    return this.textTerm(index.table, phraseIn(index.column, text), required, () =>
      this.exactContains(x, text),
    );
  }

  private exactContains(x: string, text: string): string {
    // SQLite's LIKE folds ASCII letters only, which is exactly how a non-unicode JavaScript
    // /i regex treats an ASCII needle; any other needle goes to JavaScript.
    if (/^[\x20-\x7e]*$/.test(text))
      return `${x} LIKE ${this.bind(`${TAG.string}%${escapeLike(text)}%`)} ESCAPE '\\'`;
    return `mmp_contains(${x}, ${this.bind(text)})`;
  }
}

export function compileFilter(filter: Filter, context: FilterContext): Compiled {
  const builder = new Builder(context);
  const sql = builder.filter(filter);
  const { driver } = builder;
  if (!driver) return { sql, params: builder.params };
  // Each match once (an FTS5 rowid is unique), each looked up by rowid: CROSS JOIN keeps
  // this order, which SQLite would otherwise weigh against the other conditions' indexes.
  const from = `(SELECT rowid AS found FROM ${driver.ftsTable} WHERE ${driver.ftsTable} MATCH ?) AS matches CROSS JOIN ${context.table} ON ${context.table}.rowid = matches.found`;
  return { sql, params: builder.params, from: { sql: from, params: [driver.query] } };
}

export function compileSort(sort: Sort | undefined): string {
  if (!sort || Object.keys(sort).length === 0) return '';
  const keys = Object.entries(sort).map(
    ([path, dir]) => `${fieldExpression(path)} ${dir === -1 ? 'DESC' : 'ASC'}`,
  );
  return ` ORDER BY ${keys.join(', ')}`;
}
