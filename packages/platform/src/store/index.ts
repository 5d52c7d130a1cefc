export * from './port.js';
export { openStore, openEmbeddedStore, openMongoStore, type OpenStoreOptions } from './open.js';
export type { EmbeddedStoreOptions } from './embedded.js';
export type { MongoStoreOptions } from './mongo.js';
export * from './collections.js';
