import path from 'node:path';
import { openEmbeddedStore } from './embedded.js';
import { openMongoStore } from './mongo.js';
import type { Store } from './port.js';

export type OpenStoreOptions = {
  /** When set, MongoDB with one database per service; else the embedded store. */
  mongoUrl?: string;
  dataDir: string;
  service: string;
};

export function openStore({ mongoUrl, dataDir, service }: OpenStoreOptions): Promise<Store> {
  return mongoUrl
    ? openMongoStore({ url: mongoUrl, database: service })
    : openEmbeddedStore({ dir: path.join(dataDir, service) });
}
