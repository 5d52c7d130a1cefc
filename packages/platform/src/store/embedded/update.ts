import type { Filter, Update } from '../port.js';
import { isOperatorObject, isPlainObject, type Plain } from '../translate.js';
import { conditionHolds, equalValues, matches } from './matcher.js';

/**
 * The port's update operators applied to a decoded document, in place, with MongoDB's
 * meaning: dotted paths create the sub-documents they lack, `$inc` and `$push` start a
 * missing field, and `$pull` removes the elements equal to a value or matching a filter.
 */

type Parent = { node: Plain | unknown[]; key: string };

function child(node: Plain | unknown[], key: string): unknown {
  return Array.isArray(node) ? node[Number(key)] : node[key];
}

function isIndex(node: Plain | unknown[], key: string): boolean {
  return !Array.isArray(node) || /^\d+$/.test(key);
}

/** The container holding the last segment of `path`; created on the way when `create`. */
function parentOf(doc: Plain, path: string, create: boolean): Parent | undefined {
  const segments = path.split('.');
  const key = segments.pop() as string;
  let node: Plain | unknown[] = doc;
  for (const segment of segments) {
    if (!isIndex(node, segment)) throw new TypeError(`cannot reach ${path} through an array`);
    let next = child(node, segment);
    if (next === undefined || next === null) {
      if (!create) return undefined;
      next = {};
      if (Array.isArray(node)) node[Number(segment)] = next;
      else node[segment] = next;
    }
    if (typeof next !== 'object' || next instanceof Date)
      throw new TypeError(`cannot create field ${path}: ${segment} is not a sub-document`);
    node = next as Plain | unknown[];
  }
  if (!isIndex(node, key)) throw new TypeError(`cannot reach ${path} through an array`);
  return { node, key };
}

function write({ node, key }: Parent, value: unknown): void {
  if (Array.isArray(node)) node[Number(key)] = value;
  else node[key] = value;
}

function pullMatches(element: unknown, condition: unknown): boolean {
  if (isOperatorObject(condition)) return conditionHolds([element], condition);
  if (isPlainObject(condition)) return isPlainObject(element) && matches(element, condition as Filter);
  return equalValues(element, condition);
}

export function applyUpdate(doc: Plain, update: Update): void {
  for (const [path, value] of Object.entries(update.$set ?? {})) {
    write(parentOf(doc, path, true) as Parent, value);
  }
  for (const path of Object.keys(update.$unset ?? {})) {
    const parent = parentOf(doc, path, false);
    if (!parent) continue;
    if (Array.isArray(parent.node)) parent.node[Number(parent.key)] = null;
    else delete parent.node[parent.key];
  }
  for (const [path, amount] of Object.entries(update.$inc ?? {})) {
    const parent = parentOf(doc, path, true) as Parent;
    const current = child(parent.node, parent.key);
    if (current !== undefined && typeof current !== 'number')
      throw new TypeError(`$inc on ${path}: not a number`);
    write(parent, ((current as number | undefined) ?? 0) + amount);
  }
  for (const [path, { $each }] of Object.entries(update.$push ?? {})) {
    const parent = parentOf(doc, path, true) as Parent;
    const current = child(parent.node, parent.key);
    if (current !== undefined && !Array.isArray(current))
      throw new TypeError(`$push on ${path}: not an array`);
    write(parent, [...((current as unknown[] | undefined) ?? []), ...$each]);
  }
  for (const [path, condition] of Object.entries(update.$pull ?? {})) {
    const parent = parentOf(doc, path, false);
    const current = parent && child(parent.node, parent.key);
    if (current === undefined) continue;
    if (!Array.isArray(current)) throw new TypeError(`$pull on ${path}: not an array`);
    write(
      parent as Parent,
      current.filter((element) => !pullMatches(element, condition)),
    );
  }
}

/** `{'a.b': 1}` → `{a: {b: 1}}`: the document an upsert starts from. */
export function nest(flat: Plain): Plain {
  const out: Plain = {};
  for (const [dotted, value] of Object.entries(flat)) {
    const parent = parentOf(out, dotted, true);
    if (!parent) throw new TypeError(`upsert: conflicting filter fields at ${dotted}`);
    write(parent, value);
  }
  return out;
}
