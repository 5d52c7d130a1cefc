import { randomUUID, randomBytes } from 'node:crypto';
import { createReadCache, keyedHasher, secretHint, type SharedBy } from '@mmp/platform';
import {
  ProviderApiKey,
  appError,
  newApiKey,
  newProviderApiKey,
  parseApiKey,
  type ProviderActor,
} from '@mmp/protocol';
import { defaultScopes, refusedScopes, type KeyKind } from '../domain/api-keys.js';
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

/** A project as the admin API shows it. */
export function presentProject(doc: ProjectDoc) {
  return {
    id: doc._id,
    name: doc.name,
    displayName: doc.displayName,
    logoUrl: doc.logoUrl,
    createdAt: doc.createdAt.toISOString(),
    suspendedAt: doc.suspendedAt ? doc.suspendedAt.toISOString() : null,
  };
}
export type PublicProject = ReturnType<typeof presentProject>;

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

function refuseExpired(key: ApiKeyDoc, now: Date): void {
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
    throw appError('expired_api_key', 'This API key has expired.');
  }
}

const newKeyId = () => `key_${randomBytes(12).toString('hex')}`;

export type AccountsOptions = {
  /**
   * How long a credential found valid is believed without reading it again (0: read on
   * every request). Any change of a key, a provider key or a project's suspension drops
   * every cached credential at once on this replica and, through `sharedBy`, on the
   * others; this bound holds when that notice is lost.
   */
  credentialsCacheMs?: number;
  /** The notice that keeps the gateway's replicas' credentials in step (ServiceKit.notices). */
  sharedBy?: SharedBy;
};

/** Credentials held at most, so a flood of valid keys cannot grow the cache without end. */
const CACHED_CREDENTIALS_MAX = 10_000;

type MerchantCredential = { kind: 'merchant'; key: ApiKeyDoc };
type ProviderCredential = { kind: 'provider'; actor: ProviderActor };

/** Account operations of the gateway; `serverKey` keys the hashes of every stored credential. */
export function createAccounts(store: AccountsStore, serverKey: string, options: AccountsOptions = {}) {
  const hash = keyedHasher(serverKey);
  const { credentialsCacheMs = 0, sharedBy } = options;
  // Keyed by the credential's hash, never by the secret itself; only valid credentials are
  // cached, so unknown tokens always read the store and cannot fill the cache.
  const credentials = createReadCache<MerchantCredential | ProviderCredential>({
    ttlMs: credentialsCacheMs,
    max: CACHED_CREDENTIALS_MAX,
    shared: sharedBy,
  });

  /** After a change of credentials, whether it succeeded or failed halfway. */
  async function changingCredentials<R>(change: () => Promise<R>): Promise<R> {
    try {
      return await change();
    } finally {
      credentials.changed('*');
    }
  }

  async function issueKey(
    projectId: string,
    spec: { kind: KeyKind; livemode: boolean; scopes?: string[]; expiresAt?: Date | null },
  ): Promise<IssuedKey> {
    const scopes = spec.scopes ?? defaultScopes(spec.kind);
    const refused = refusedScopes(spec.kind, scopes);
    if (refused.length > 0) {
      throw appError(
        'validation_error',
        `A ${spec.kind} key cannot hold: ${refused.map((r) => r.scope).join(', ')}.`,
        refused.map((r) => ({ field: 'scopes', message: r.reason })),
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
    return (await insertProviderKey(providerId)).apiKey;
  }

  async function insertProviderKey(providerId: string): Promise<{ id: string; apiKey: string }> {
    const apiKey = newProviderApiKey();
    const id = newKeyId();
    await store.insertProviderKey({
      _id: id,
      providerId,
      hash: hash(apiKey),
      hint: secretHint(apiKey),
      createdAt: new Date(),
      revokedAt: null,
    });
    return { id, apiKey };
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
      // The keys first, the project last: a crash or a failed write in between leaves keys
      // nobody was ever shown (harmless), never a listed project whose keys were lost.
      const keys: IssuedKey[] = [];
      for (const livemode of [false, true]) {
        for (const kind of ['secret', 'publishable'] as const)
          keys.push(await issueKey(doc._id, { kind, livemode }));
      }
      await store.insertProject(doc);
      return { ...presentProject(doc), keys };
    },

    async listProjects(): Promise<PublicProject[]> {
      return (await store.listProjects()).map(presentProject);
    },

    async getProject(projectId: string) {
      const project = await requireProject(projectId);
      return { ...presentProject(project), keys: (await store.listApiKeys(projectId)).map(presentKey) };
    },

    /**
     * Suspends a project (its keys answer 403 service_suspended from the next request) or
     * resumes it. Suspending a suspended project keeps its first date.
     */
    async setSuspended(projectId: string, suspended: boolean): Promise<PublicProject> {
      const project = await requireProject(projectId);
      if (Boolean(project.suspendedAt) === suspended) return presentProject(project);
      const updated = await changingCredentials(() =>
        store.setProjectSuspension(projectId, suspended ? new Date() : null),
      );
      if (!updated) throw appError('resource_not_found', `No project ${projectId}.`);
      return presentProject(updated);
    },

    async listKeys(projectId: string): Promise<KeySummary[]> {
      await requireProject(projectId);
      return (await store.listApiKeys(projectId)).map(presentKey);
    },

    async revokeKey(projectId: string, keyId: string): Promise<KeySummary> {
      const revoked = await changingCredentials(() => store.revokeApiKey(projectId, keyId, new Date()));
      if (revoked) return presentKey(revoked);
      const existing = await store.findApiKey(projectId, keyId);
      if (!existing) throw appError('resource_not_found', `No key ${keyId} in project ${projectId}.`);
      return presentKey(existing);
    },

    /** A new key with the same kind, environment and scopes; the old one stops working at once. */
    async rollKey(projectId: string, keyId: string, expiresAt?: Date | null): Promise<IssuedKey> {
      const old = await store.findApiKey(projectId, keyId);
      if (!old) throw appError('resource_not_found', `No key ${keyId} in project ${projectId}.`);
      if (old.revokedAt) {
        throw appError('invalid_request', `Key ${keyId} is already revoked; create a new key instead.`);
      }
      // A scope the kind may no longer hold (a publishable key's payment_links:read) grants
      // nothing already; carrying it over would make the roll fail.
      const refused = new Set(refusedScopes(old.kind, old.scopes).map((r) => r.scope));
      const scopes = old.scopes.filter((scope) => !refused.has(scope));
      // The new key is stored before the old one is revoked: a crash in between leaves the
      // old key working (retry the roll), never a merchant without a key.
      const issued = await issueKey(projectId, {
        kind: old.kind,
        livemode: old.livemode,
        scopes,
        expiresAt: expiresAt ?? null,
      });
      const revoked = await changingCredentials(() => store.revokeApiKey(projectId, keyId, new Date()));
      if (!revoked) {
        // Another roll (or a revoke) won the race: this new key must not outlive it.
        await store.revokeApiKey(projectId, issued.id, new Date());
        throw appError(
          'invalid_state',
          `Key ${keyId} was rolled or revoked meanwhile; use the key that replaced it.`,
        );
      }
      return issued;
    },

    /** The key behind a presented merchant token, or the 401 that explains why it is refused. */
    async authenticateMerchant(token: string | null, now = new Date()): Promise<ApiKeyDoc> {
      if (!token || !parseApiKey(token)) throw appError('invalid_api_key', 'Invalid or missing API key.');
      const digest = hash(token);
      // The reads below throw rather than answer null, so what comes back is of their kind.
      const { key } = (await credentials.read(digest, async () => {
        const found = await store.findApiKeyByHash(digest);
        if (!found || found.revokedAt) throw appError('invalid_api_key', 'Invalid or missing API key.');
        refuseExpired(found, now);
        if ((await store.findProject(found.projectId))?.suspendedAt) {
          throw appError(
            'service_suspended',
            'This project is suspended; contact the operator of this service.',
          );
        }
        return { kind: 'merchant' as const, key: found };
      })) as MerchantCredential;
      // Again for a cached key: a key expires at its instant, whatever the cache holds.
      refuseExpired(key, now);
      return key;
    },

    async authenticateProvider(token: string | null): Promise<ProviderActor> {
      if (!token || !ProviderApiKey.safeParse(token).success)
        throw appError('invalid_api_key', 'Invalid or missing provider API key.');
      const digest = hash(token);
      const { actor } = (await credentials.read(digest, async () => {
        const key = await store.findProviderKeyByHash(digest);
        if (!key || key.revokedAt) throw appError('invalid_api_key', 'Invalid or missing provider API key.');
        return {
          kind: 'provider' as const,
          actor: { kind: 'provider' as const, providerId: key.providerId },
        };
      })) as ProviderCredential;
      return actor;
    },

    issueProviderKey,

    async rollProviderKey(providerId: string): Promise<string> {
      if ((await store.countProviderKeys(providerId)) === 0) {
        throw appError('resource_not_found', `No provider ${providerId}.`);
      }
      // The keys this roll replaces are read before its own exists, so a concurrent roll's
      // new key is never among them. New key first, then the old ones revoked: a crash in
      // between leaves a key working.
      const replaced = await store.activeProviderKeyIds(providerId);
      const issued = await insertProviderKey(providerId);
      for (const [index, id] of replaced.entries()) {
        if (await changingCredentials(() => store.revokeProviderKey(providerId, id, new Date()))) continue;
        // Rolls revoke in the same order, so losing the first key means another roll won;
        // this key must not outlive it. (Revoking "every key but mine" let two racing rolls
        // revoke each other's new key and leave the provider with none.)
        if (index === 0) {
          await store.revokeProviderKey(providerId, issued.id, new Date());
          throw appError(
            'invalid_state',
            `Another roll of provider ${providerId}'s key finished first; use its key or roll again.`,
          );
        }
      }
      return issued.apiKey;
    },
  };
}
export type Accounts = ReturnType<typeof createAccounts>;
