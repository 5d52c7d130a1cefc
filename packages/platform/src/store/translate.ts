import type { Filter, IndexSpec, Update } from './port.js';

/**
 * Shared by both adapters: validation of the port's filter and update language, and the walk
 * that hands every field condition to an adapter's dialect. Validation lives here, not
 * in each adapter, so that anything one engine would accept and the other would read
 * differently is refused by both, at development time, on the embedded store.
 */

export type Plain = Record<string, unknown>;

/** How one engine spells the port's conditions. */
export type Dialect = {
  /** Rewrites one operator object, e.g. `$contains` into the engine's regex form. */
  condition(condition: Plain): Plain;
  /** The filter fragments (ANDed) that express `field` matching `value` (equality or operators). */
  field(field: string, value: unknown): Plain[];
};

const CONDITION_OPERATORS = new Set([
  '$eq',
  '$ne',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$contains',
]);
const UPDATE_OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$pull']);

export function isPlainObject(value: unknown): value is Plain {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp)
  );
}

/** Both engines treat an object whose keys start with `$` as operators, not as a sub-document. */
export function isOperatorObject(value: unknown): value is Plain {
  return isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$'));
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function checkDefined(field: string, value: unknown): void {
  // Undefined would be dropped or nulled by the drivers, widening the filter silently.
  if (value === undefined) throw new TypeError(`filter on ${field}: undefined value`);
}

function checkCondition(field: string, condition: Plain): void {
  for (const [op, value] of Object.entries(condition)) {
    if (!CONDITION_OPERATORS.has(op)) throw new TypeError(`filter on ${field}: unsupported operator ${op}`);
    if (op === '$in' || op === '$nin') {
      if (!Array.isArray(value)) throw new TypeError(`filter on ${field}: ${op} takes an array`);
      value.forEach((v) => checkDefined(field, v));
    } else if (op === '$exists') {
      if (typeof value !== 'boolean') throw new TypeError(`filter on ${field}: $exists takes a boolean`);
    } else if (op === '$contains') {
      if (typeof value !== 'string') throw new TypeError(`filter on ${field}: $contains takes a string`);
    } else {
      checkDefined(field, value);
      // Ordering against null means type-bracketing tricks in MongoDB: not portable.
      if (value === null && op !== '$eq' && op !== '$ne')
        throw new TypeError(`filter on ${field}: ${op} null is not portable`);
    }
  }
}

/** Validates `filter` and rebuilds it in the engine's dialect. */
export function translateFilter(filter: Filter, dialect: Dialect): Plain {
  const fragments: Plain[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(value) || value.length === 0)
        throw new TypeError(`${key} takes a non-empty array of filters`);
      fragments.push({ [key]: value.map((sub: Filter) => translateFilter(sub, dialect)) });
    } else if (key.startsWith('$')) {
      throw new TypeError(`unsupported filter operator ${key}`);
    } else {
      if (isOperatorObject(value)) checkCondition(key, value);
      else checkDefined(key, value);
      fragments.push(...dialect.field(key, value));
    }
  }
  // Fragments merge into one object unless two want the same key (say, two $or): those are ANDed.
  const out: Plain = {};
  const rest: Plain[] = [];
  for (const fragment of fragments) {
    if (Object.keys(fragment).some((k) => Object.hasOwn(out, k))) rest.push(fragment);
    else Object.assign(out, fragment);
  }
  if (rest.length > 0) out.$and = [...((out.$and as Plain[] | undefined) ?? []), ...rest];
  return out;
}

/**
 * The fields an upsert copies into the new document: plain equality and `$eq`, including
 * inside `$and`, keyed by (possibly dotted) path. This is what MongoDB extracts as well.
 */
export function equalityFields(filter: Filter): Plain {
  const out: Plain = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') for (const sub of value as Filter[]) Object.assign(out, equalityFields(sub));
    else if (key.startsWith('$')) continue;
    else if (!isOperatorObject(value)) out[key] = value;
    else if (Object.hasOwn(value, '$eq')) out[key] = value.$eq;
  }
  return out;
}

function rewritePullValue(value: unknown, dialect: Dialect): unknown {
  if (isOperatorObject(value)) {
    checkCondition('$pull', value);
    return dialect.condition(value);
  }
  return isPlainObject(value) ? translateFilter(value as Filter, dialect) : value;
}

/** Validates `update` and rewrites the sub-filters of `$pull`. */
export function translateUpdate(update: Update, dialect: Dialect): Plain {
  const keys = Object.keys(update);
  // An update without operators is a whole-document replacement in MongoDB: never what was meant.
  if (keys.length === 0) throw new TypeError('update has no operators');
  const out: Plain = {};
  for (const key of keys) {
    if (!UPDATE_OPERATORS.has(key)) throw new TypeError(`unsupported update operator ${key}`);
    const fields = (update as Plain)[key];
    if (!isPlainObject(fields)) throw new TypeError(`${key} takes an object`);
    if (key === '$set') {
      // MongoDB (ignoreUndefined) would leave the field alone: say which was meant.
      const unset = Object.entries(fields).find(([, value]) => value === undefined);
      if (unset) throw new TypeError(`$set of ${unset[0]} to undefined: use $unset`);
    }
    if (key === '$push') {
      for (const [field, value] of Object.entries(fields)) {
        if (!isPlainObject(value) || !Array.isArray(value.$each) || Object.keys(value).length !== 1) {
          throw new TypeError(`$push on ${field} takes { $each: [...] }`);
        }
      }
    }
    out[key] =
      key === '$pull'
        ? Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, rewritePullValue(v, dialect)]))
        : fields;
  }
  return out;
}

/** Index fields in declaration order; TTL indexes must be single-field in both engines. */
export function indexFields(spec: IndexSpec): string[] {
  const fields = Object.keys(spec.fields);
  if (fields.length === 0) throw new TypeError('index needs at least one field');
  if (spec.text && (spec.unique || spec.expireAfterSeconds !== undefined))
    throw new TypeError('a text index is neither unique nor a TTL index');
  if (spec.expireAfterSeconds !== undefined) {
    // The embedded store sweeps on a top-level field only.
    if (fields.length !== 1 || fields[0]?.includes('.'))
      throw new TypeError('a TTL index takes exactly one top-level field');
  }
  return fields;
}

/** Collection names become file names in the embedded adapter, so keep them boring. */
export function checkCollectionName(name: string): void {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/.test(name))
    throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
}
