import type { Outbox, Store } from '@mmp/platform';
import type { KeyKind } from '../domain/api-keys.js';
import { projectUpdated } from '../domain/projects.js';

export type ProjectDoc = {
  _id: string;
  name: string;
  displayName: string;
  logoUrl: string | null;
  createdAt: Date;
  /** Set while an operator has suspended the project: its keys are refused (absent: never suspended). */
  suspendedAt?: Date | null;
  /** project.updated carried it; projects stored before that event existed lack it. */
  announced?: true;
};

/** A merchant API key: only its keyed hash and a display hint are kept. */
export type ApiKeyDoc = {
  _id: string;
  projectId: string;
  kind: KeyKind;
  livemode: boolean;
  scopes: string[];
  hash: string;
  hint: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
};

export type ProviderKeyDoc = {
  _id: string;
  providerId: string;
  hash: string;
  hint: string;
  createdAt: Date;
  revokedAt: Date | null;
};

/** Projects carry their `project.updated` events in an outbox. */
export const projectsCollection = (store: Store) => store.collection<ProjectDoc>('projects');

/** The gateway's own collections: projects, their API keys, and providers' API keys. */
export async function openAccountsStore(store: Store, outbox: Outbox) {
  const projects = projectsCollection(store);
  const apiKeys = store.collection<ApiKeyDoc>('api_keys');
  const providerKeys = store.collection<ProviderKeyDoc>('provider_keys');
  await apiKeys.ensureIndex({ fields: { hash: 1 }, unique: true });
  await apiKeys.ensureIndex({ fields: { projectId: 1 } });
  await providerKeys.ensureIndex({ fields: { hash: 1 }, unique: true });
  await providerKeys.ensureIndex({ fields: { providerId: 1 } });

  return {
    /** The project and its announcement, in one write. */
    insertProject: (doc: ProjectDoc) =>
      outbox.insert(projects, { ...doc, announced: true }, [projectUpdated(doc, doc.createdAt)]),
    unannouncedProjects: () => projects.find({ announced: { $exists: false } }),
    /** Compare-and-set: whichever replica starts first announces a project, once. */
    announceProject: (doc: ProjectDoc, at: Date) =>
      outbox.update(
        projects,
        { _id: doc._id, announced: { $exists: false } },
        { $set: { announced: true } },
        [projectUpdated(doc, at)],
      ),
    findProject: (id: string) => projects.findOne({ _id: id }),
    /** Suspends (a date) or resumes (null); the project as it now is, or null when unknown. */
    setProjectSuspension: (id: string, suspendedAt: Date | null) =>
      projects.findOneAndUpdate({ _id: id }, { $set: { suspendedAt } }),
    listProjects: () => projects.find({}, { sort: { createdAt: -1 } }),

    insertApiKey: (doc: ApiKeyDoc) => apiKeys.insertOne(doc),
    findApiKeyByHash: (hash: string) => apiKeys.findOne({ hash }),
    findApiKey: (projectId: string, id: string) => apiKeys.findOne({ _id: id, projectId }),
    listApiKeys: (projectId: string) => apiKeys.find({ projectId }, { sort: { createdAt: 1 } }),
    /** Compare-and-set: only an active key is revoked; null when it was not active. */
    revokeApiKey: (projectId: string, id: string, at: Date) =>
      apiKeys.findOneAndUpdate({ _id: id, projectId, revokedAt: null }, { $set: { revokedAt: at } }),

    insertProviderKey: (doc: ProviderKeyDoc) => providerKeys.insertOne(doc),
    findProviderKeyByHash: (hash: string) => providerKeys.findOne({ hash }),
    countProviderKeys: (providerId: string) => providerKeys.count({ providerId }),
    /** Ids of the provider's working keys, in a fixed order (by id). */
    activeProviderKeyIds: async (providerId: string) =>
      (await providerKeys.find({ providerId, revokedAt: null }, { sort: { _id: 1 } })).map((key) => key._id),
    /** Compare-and-set: only a working key is revoked; null when it was revoked already. */
    revokeProviderKey: (providerId: string, id: string, at: Date) =>
      providerKeys.findOneAndUpdate({ _id: id, providerId, revokedAt: null }, { $set: { revokedAt: at } }),
  };
}
export type AccountsStore = Awaited<ReturnType<typeof openAccountsStore>>;
