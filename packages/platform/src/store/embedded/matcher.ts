import type { Filter } from '../port.js';
import { escapeRegExp, isOperatorObject, isPlainObject, type Plain } from '../translate.js';

/**
 * The port's filter language evaluated in JavaScript on a decoded document, with MongoDB's
 * reading of arrays: a dotted path looks into arrays of sub-documents, and a condition on
 * an array holds when the array itself or any element satisfies it. The embedded store
 * compiles filters to SQL and calls this only where SQL's `->>` cannot follow the data (a
 * path that has held an array) and for `$pull`.
 */

/** The values a dotted path reaches; none when it reaches nothing (the field is missing). */
export function valuesAt(node: unknown, segments: readonly string[], from = 0): unknown[] {
  if (from === segments.length) return [node];
  const segment = segments[from] as string;
  if (Array.isArray(node)) {
    if (/^\d+$/.test(segment)) return valuesAt(node[Number(segment)], segments, from + 1);
    return node.flatMap((item) => (isPlainObject(item) ? valuesAt(item, segments, from) : []));
  }
  if (isPlainObject(node) && Object.hasOwn(node, segment)) return valuesAt(node[segment], segments, from + 1);
  return [];
}

function typeRank(value: unknown): string {
  if (value instanceof Date) return 'date';
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function equalValues(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  // Sub-documents compare field by field in order, as in MongoDB.
  return (
    keysA.length === keysB.length &&
    keysA.every((key, i) => key === keysB[i] && equalValues((a as Plain)[key], (b as Plain)[key]))
  );
}

/** Negative, zero or positive within one type; undefined across types (never matches). */
function compareValues(a: unknown, b: unknown): number | undefined {
  const type = typeRank(a);
  if (type !== typeRank(b)) return undefined;
  if (type === 'date') return (a as Date).getTime() - (b as Date).getTime();
  if (type === 'number') return (a as number) - (b as number);
  if (type === 'string' || type === 'boolean') return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
  return undefined;
}

/** The values a condition is tested against: each reached value and, for arrays, their elements. */
function candidates(values: unknown[]): unknown[] {
  return values.flatMap((value) => (Array.isArray(value) ? [value, ...value] : [value]));
}

function equals(values: unknown[], operand: unknown): boolean {
  if (operand === null) return values.length === 0 || candidates(values).some((v) => v === null);
  return candidates(values).some((value) => equalValues(value, operand));
}

function ordered(values: unknown[], operand: unknown, accept: (order: number) => boolean): boolean {
  return candidates(values).some((value) => {
    const order = compareValues(value, operand);
    return order !== undefined && accept(order);
  });
}

const regexCache = new Map<string, RegExp>();

/** Case-insensitive literal substring, as the port's `$contains`. */
export function containsText(value: unknown, text: string): boolean {
  if (typeof value !== 'string') return false;
  let pattern = regexCache.get(text);
  if (!pattern) {
    if (regexCache.size > 1_000) regexCache.clear();
    pattern = new RegExp(escapeRegExp(text), 'i');
    regexCache.set(text, pattern);
  }
  return pattern.test(value);
}

function operatorHolds(values: unknown[], op: string, operand: unknown): boolean {
  switch (op) {
    case '$eq':
      return equals(values, operand);
    case '$ne':
      return !equals(values, operand);
    case '$in':
      return (operand as unknown[]).some((item) => equals(values, item));
    case '$nin':
      return !(operand as unknown[]).some((item) => equals(values, item));
    case '$gt':
      return ordered(values, operand, (order) => order > 0);
    case '$gte':
      return ordered(values, operand, (order) => order >= 0);
    case '$lt':
      return ordered(values, operand, (order) => order < 0);
    case '$lte':
      return ordered(values, operand, (order) => order <= 0);
    case '$exists':
      return values.length > 0 === operand;
    case '$contains':
      return candidates(values).some((value) => containsText(value, operand as string));
    default:
      throw new TypeError(`unsupported operator ${op}`);
  }
}

/** Whether `value`, reached at a field, satisfies the field's condition (equality or operators). */
export function conditionHolds(values: unknown[], condition: unknown): boolean {
  if (!isOperatorObject(condition)) return equals(values, condition);
  return Object.entries(condition).every(([op, operand]) => operatorHolds(values, op, operand));
}

export function matches(doc: unknown, filter: Filter): boolean {
  return Object.entries(filter).every(([key, value]) => {
    if (key === '$or') return (value as Filter[]).some((sub) => matches(doc, sub));
    if (key === '$and') return (value as Filter[]).every((sub) => matches(doc, sub));
    return conditionHolds(valuesAt(doc, key.split('.')), value);
  });
}
