import { randomUUID, randomBytes } from 'node:crypto';
import { keyedHash, secretHint } from '@mmp/platform';
import {
  ProviderApiKey,
  appError,
  newApiKey,
  newProviderApiKey,
  parseApiKey,
  type ProviderActor,
} from '@mmp/protocol';
import { defaultScopes, forbiddenScopes, type KeyKind } from '../domain/api-keys.js';
import type { AccountsStore, ApiKeyDoc, ProjectDoc } from '../store/accounts.js';

export type KeySummary = {
  id: string;
  kind: KeyKind;
  livemode: boolean;
  hint: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
};
/** A key as returned at creation: the only time `key` is ever shown. */
export type IssuedKey = KeySummary & { key: string };

export type PublicProject = {
  id: string;
  name: string;
  displayName: string;
  logoUrl: string | null;
  createdAt: string;
};

export function presentProject(doc: ProjectDoc): PublicProject {
  return {
    id: doc._id,
    name: doc.name,
    displayName: doc.displayName,
    logoUrl: doc.logoUrl,
    createdAt: doc.createdAt.toISOString(),
  };
}

export function presentKey(doc: ApiKeyDoc): KeySummary {
  return {
    id: doc._id,
    kind: doc.kind,
    livemode: doc.livemode,
    hint: doc.hint,
    scopes: doc.scopes,
    createdAt: doc.createdAt.toISOString(),
    expiresAt: doc.expiresAt ? doc.expiresAt.toISOString() : null,
    revokedAt: doc.revokedAt ? doc.revokedAt.toISOString() : null,
  };
}

const newKeyId = () => `key_${randomBytes(12).toString('hex')}`;

/** Account operations of the gateway; `serverKey` keys the hashes of every stored credential. */
export function createAccounts(store: AccountsStore, serverKey: string) {
  const hash = (token: string) => keyedHash(serverKey, token);

  async function issueKey(
    projectId: string,
    spec: { kind: KeyKind; livemode: boolean; scopes?: string[]; expiresAt?: Date | null },
  ): Promise<IssuedKey> {
    const scopes = spec.scopes ?? defaultScopes(spec.kind);
    const refused = forbiddenScopes(spec.kind, scopes);
    if (refused.length > 0) {
      throw appError(
        'validation_error',
        `A ${spec.kind} key cannot hold: ${refused.join(', ')}.`,
        refused.map(() => ({ field: 'scopes', message: `not allowed on a ${spec.kind} key` })),
      );
    }
    const key = newApiKey(spec.kind, spec.livemode);
    const doc: ApiKeyDoc = {
      _id: newKeyId(),
      projectId,
      kind: spec.kind,
      livemode: spec.livemode,
      scopes: [...new Set(scopes)],
      hash: hash(key),
      hint: secretHint(key),
      createdAt: new Date(),
      expiresAt: spec.expiresAt ?? null,
      revokedAt: null,
    };
    await store.insertApiKey(doc);
    return { ...presentKey(doc), key };
  }

  async function issueProviderKey(providerId: string): Promise<string> {
    const apiKey = newProviderApiKey();
    await store.insertProviderKey({
      _id: newKeyId(),
      providerId,
      hash: hash(apiKey),
      hint: secretHint(apiKey),
      createdAt: new Date(),
      revokedAt: null,
    });
    return apiKey;
  }

  async function requireProject(projectId: string): Promise<ProjectDoc> {
    const project = await store.findProject(projectId);
    if (!project) throw appError('resource_not_found', `No project ${projectId}.`);
    return project;
  }

  return {
    requireProject,
    issueKey,

    /** Creates a project with its four keys (test/live x secret/publishable), shown once. */
    async createProject(input: { id?: string; name: string; displayName?: string; logoUrl?: string | null }) {
      const doc: ProjectDoc = {
        _id: input.id ?? randomUUID(),
        name: input.name,
        displayName: input.displayName ?? input.name,
        logoUrl: input.logoUrl ?? null,
        createdAt: new Date(),
      };
      await store.insertProject(doc);
      const keys: IssuedKey[] = [];
      for (const livemode of [false, true]) {
        for (const kind of ['secret', 'publishable'] as const)
          keys.push(await issueKey(doc._id, { kind, livemode }));
      }
      return { ...presentProject(doc), keys };
    },

    async listProjects(): Promise<PublicProject[]> {
      return (await store.listProjects()).map(presentProject);
    },

    async getProject(projectId: string) {
      const project = await requireProject(projectId);
      return { ...presentProject(project), keys: (await store.listApiKeys(projectId)).map(presentKey) };
    },

    async listKeys(projectId: string): Promise<KeySummary[]> {
      await requireProject(projectId);
      return (await store.listApiKeys(projectId)).map(presentKey);
    },

    async revokeKey(projectId: string, keyId: string): Promise<KeySummary> {
      const revoked = await store.revokeApiKey(projectId, keyId, new Date());
      if (revoked) return presentKey(revoked);
      const existing = await store.findApiKey(projectId, keyId);
      if (!existing) throw appError('resource_not_found', `No key ${keyId} in project ${projectId}.`);
      return presentKey(existing);
    },

    /** A new key with the same kind, environment and scopes; the old one stops working at once. */
    async rollKey(projectId: string, keyId: string, expiresAt?: Date | null): Promise<IssuedKey> {
      const old = await store.findApiKey(projectId, keyId);
      if (!old) throw appError('resource_not_found', `No key ${keyId} in project ${projectId}.`);
      if (!(await store.revokeApiKey(projectId, keyId, new Date()))) {
        throw appError('invalid_request', `Key ${keyId} is already revoked; create a new key instead.`);
      }
      return issueKey(projectId, {
        kind: old.kind,
        livemode: old.livemode,
        scopes: old.scopes,
        expiresAt: expiresAt ?? null,
      });
    },

    /** The key behind a presented merchant token, or the 401 that explains why it is refused. */
    async authenticateMerchant(token: string | null, now = new Date()): Promise<ApiKeyDoc> {
      if (!token || !parseApiKey(token)) throw appError('invalid_api_key', 'Invalid or missing API key.');
      const key = await store.findApiKeyByHash(hash(token));
      if (!key || key.revokedAt) throw appError('invalid_api_key', 'Invalid or missing API key.');
      if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
        throw appError('expired_api_key', 'This API key has expired.');
      }
      return key;
    },

    async authenticateProvider(token: string | null): Promise<ProviderActor> {
      if (!token || !ProviderApiKey.safeParse(token).success)
        throw appError('invalid_api_key', 'Invalid or missing provider API key.');
      const key = await store.findProviderKeyByHash(hash(token));
      if (!key || key.revokedAt) throw appError('invalid_api_key', 'Invalid or missing provider API key.');
      return { kind: 'provider', providerId: key.providerId };
    },

    issueProviderKey,

    async rollProviderKey(providerId: string): Promise<string> {
      if ((await store.countProviderKeys(providerId)) === 0) {
        throw appError('resource_not_found', `No provider ${providerId}.`);
      }
      await store.revokeProviderKeys(providerId, new Date());
      return issueProviderKey(providerId);
    },
  };
}
export type Accounts = ReturnType<typeof createAccounts>;
