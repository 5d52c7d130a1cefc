import path from 'node:path';
import type { EmbeddedStoreOptions } from './embedded.js';
import type { MongoStoreOptions } from './mongo.js';
import type { Store } from './port.js';

export type OpenStoreOptions = {
  /** When set, MongoDB with one database per service; else the embedded store. */
  mongoUrl?: string;
  /** MongoDB only: the database is `<prefix>_<service>` (MONGO_DB_PREFIX). */
  mongoDbPrefix?: string;
  dataDir: string;
  service: string;
};

/*
 * Each adapter is imported when first opened, not with the kit: a service on the embedded
 * store never loads the MongoDB driver, and one on MongoDB never loads SQLite.
 */

export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<Store> {
  return (await import('./embedded.js')).openEmbeddedStore(options);
}

export async function openMongoStore(options: MongoStoreOptions): Promise<Store> {
  return (await import('./mongo.js')).openMongoStore(options);
}

export function openStore({ mongoUrl, mongoDbPrefix, dataDir, service }: OpenStoreOptions): Promise<Store> {
  return mongoUrl
    ? openMongoStore({ url: mongoUrl, database: mongoDbPrefix ? `${mongoDbPrefix}_${service}` : service })
    : openEmbeddedStore({ dir: path.join(dataDir, service) });
}
