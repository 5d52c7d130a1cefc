import { isPlainObject, type Plain } from '../translate.js';

/**
 * How documents are kept in SQLite: JSON text in which every string, Date and boolean
 * carries a two-character type tag (`s:`, `d:` + ISO time, `b:0`/`b:1`). SQLite's `->>`
 * then yields values whose SQL order and equality follow the port's type brackets: a
 * string never equals or compares with a Date, a boolean is never the number 1, and each
 * type is one contiguous range of an index (`'s:' <= x < 's;'`). Numbers stay JSON
 * numbers, null stays null; sub-documents and arrays are tagged inside.
 */

export const TAG = { string: 's:', date: 'd:', boolean: 'b:' } as const;

/** The first text after every value of a tag: `';'` follows `':'`. */
export function tagEnd(tag: string): string {
  return `${tag[0]};`;
}

export function encodeValue(value: unknown): unknown {
  if (typeof value === 'string') return TAG.string + value;
  if (value instanceof Date) return TAG.date + value.toISOString();
  if (typeof value === 'boolean') return value ? 'b:1' : 'b:0';
  if (Array.isArray(value)) return value.map(encodeValue);
  if (isPlainObject(value)) {
    const out: Plain = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined) out[key] = encodeValue(item);
    }
    return out;
  }
  return value;
}

export function decodeValue(value: unknown): unknown {
  if (typeof value === 'string') {
    const tag = value.slice(0, 2);
    if (tag === TAG.string) return value.slice(2);
    if (tag === TAG.date) return new Date(value.slice(2));
    if (tag === TAG.boolean) return value === 'b:1';
    throw new Error(`embedded store: untagged value ${JSON.stringify(value.slice(0, 20))}`);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = decodeValue(value[i]);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Plain;
    for (const key of Object.keys(object)) object[key] = decodeValue(object[key]);
    return object;
  }
  return value;
}

/** What a scalar looks like in SQL (`->>` of its encoded form); null for null. */
export function sqlValue(value: unknown): unknown {
  const encoded = encodeValue(value);
  if (encoded === null || typeof encoded !== 'object') return encoded;
  return JSON.stringify(encoded);
}

export function encodeDocument(doc: Plain): string {
  return JSON.stringify(encodeValue(doc));
}

export function decodeDocument<T>(text: string): T {
  return decodeValue(JSON.parse(text)) as T;
}

/**
 * Top-level fields kept in a column of their own (`side`) beside the document (`data`):
 * the outbox's bookkeeping, which every publish rewrites. SQLite maintains only the indexes
 * whose expressions read a column an UPDATE sets, so marking an event published rewrites
 * that small column and the relay's index, not the document and every index built on it.
 */
export const SIDE_FIELDS: ReadonlySet<string> = new Set(['_outbox', '_outboxPending']);

export type Column = 'data' | 'side';

/** The column holding a dotted path. */
export function columnOf(path: string): Column {
  const top = path.split('.', 1)[0] as string;
  return SIDE_FIELDS.has(top) ? 'side' : 'data';
}

/** A document as its two columns' JSON texts; `side` is null when it has no side field. */
export type StoredTexts = { data: string; side: string | null };

export function encodeStored(doc: Plain): StoredTexts {
  const data: Plain = {};
  let side: Plain | undefined;
  for (const key of Object.keys(doc)) {
    if (SIDE_FIELDS.has(key)) (side ??= {})[key] = doc[key];
    else data[key] = doc[key];
  }
  return { data: encodeDocument(data), side: side ? encodeDocument(side) : null };
}

export function decodeStored<T>({ data, side }: StoredTexts): T {
  const doc = decodeDocument<Plain>(data);
  return (side === null ? doc : Object.assign(doc, decodeDocument<Plain>(side))) as T;
}

/**
 * Every dotted path of `doc` that holds an array, looking through arrays of sub-documents
 * (`lines` and `lines.tags` for `{lines: [{tags: []}]}`). A filter on such a path, or
 * below it, needs the element-wise matching SQL's `->>` cannot express.
 */
export function arrayPaths(doc: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) {
    into.add(prefix);
    for (const item of doc) if (isPlainObject(item)) arrayPaths(item, prefix, into);
  } else if (isPlainObject(doc)) {
    for (const [key, value] of Object.entries(doc)) {
      if (value !== null && typeof value === 'object' && !(value instanceof Date))
        arrayPaths(value, prefix ? `${prefix}.${key}` : key, into);
    }
  }
  return into;
}
