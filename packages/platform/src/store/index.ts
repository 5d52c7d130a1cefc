export * from './port.js';
export { openStore, type OpenStoreOptions } from './open.js';
export { openEmbeddedStore, type EmbeddedStoreOptions } from './embedded.js';
export { openMongoStore, type MongoStoreOptions } from './mongo.js';
