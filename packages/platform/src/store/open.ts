import path from 'node:path';
import { openEmbeddedStore } from './embedded.js';
import { openMongoStore } from './mongo.js';
import type { Store } from './port.js';

export type OpenStoreOptions = {
  /** When set, MongoDB with one database per service; else the embedded store. */
  mongoUrl?: string;
  /** MongoDB only: the database is `<prefix>_<service>` (MONGO_DB_PREFIX). */
  mongoDbPrefix?: string;
  dataDir: string;
  service: string;
};

export function openStore({ mongoUrl, mongoDbPrefix, dataDir, service }: OpenStoreOptions): Promise<Store> {
  return mongoUrl
    ? openMongoStore({ url: mongoUrl, database: mongoDbPrefix ? `${mongoDbPrefix}_${service}` : service })
    : openEmbeddedStore({ dir: path.join(dataDir, service) });
}
