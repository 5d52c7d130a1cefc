import type { Provider } from '../domain/provider.js';
import type { RouterDb } from './db.js';

export function findProvider(db: RouterDb, providerId: string): Promise<Provider | null> {
  return db.providers.findOne({ _id: providerId });
}

export function listProviders(db: RouterDb): Promise<Provider[]> {
  return db.providers.find({}, { sort: { createdAt: 1 } });
}

export function insertProvider(db: RouterDb, provider: Provider): Promise<void> {
  return db.providers.insertOne(provider);
}
