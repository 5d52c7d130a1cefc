import { chmodSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { checkCollectionName, isPlainObject, type Plain } from '../translate.js';
import { arrayPaths, encodeStored, sqlValue } from './codec.js';
import { ARRAY_PATHS_TABLE, createTable, quote } from './collection.js';

/**
 * The embedded store was NeDB until the SQLite engine replaced it: a folder still holding
 * NeDB datafiles (`<collection>.db`, one JSON document per line, later lines winning) is
 * imported on open, each file in one transaction, then renamed `<collection>.db.imported`
 * so it is never read twice and can be deleted once the data is checked.
 */

/** NeDB writes Dates as `{"$$date": ms}`. */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$$date') return new Date(value.$$date as number);
  return Object.fromEntries(keys.map((key) => [key, revive(value[key])]));
}

function readDatafile(file: string): Map<string, Plain> {
  const docs = new Map<string, Plain>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as Plain;
    if ('$$indexCreated' in doc || '$$indexRemoved' in doc) continue;
    const id = doc._id as string;
    if (doc.$$deleted === true) docs.delete(id);
    else docs.set(id, revive(doc) as Plain);
  }
  return docs;
}

export function importNedbDatafiles(db: BetterSqlite3.Database, dir: string): string[] {
  const imported: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith('.db')) continue;
    const name = entry.slice(0, -'.db'.length);
    try {
      checkCollectionName(name);
    } catch {
      continue;
    }
    const file = path.join(dir, entry);
    const docs = readDatafile(file);
    db.transaction(() => {
      createTable(db, name);
      const insert = db.prepare(
        `INSERT OR REPLACE INTO ${quote(name)} (_id, data, side) VALUES (?, jsonb(?), jsonb(?))`,
      );
      const addPath = db.prepare(
        `INSERT OR IGNORE INTO ${ARRAY_PATHS_TABLE} (collection, path) VALUES (?, ?)`,
      );
      const paths = new Set<string>();
      for (const doc of docs.values()) {
        const texts = encodeStored(doc);
        insert.run(sqlValue(doc._id), texts.data, texts.side);
        arrayPaths(doc, '', paths);
      }
      for (const arrayPath of paths) addPath.run(name, arrayPath);
    })();
    renameSync(file, `${file}.imported`);
    chmodSync(`${file}.imported`, 0o600);
    imported.push(name);
  }
  return imported;
}
