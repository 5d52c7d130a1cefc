import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, type Logger, type SecretBox } from '@mmp/platform';
import { callServiceApi, ServiceCallError } from '@mmp/provider-kit';
import {
  findRegistration,
  saveRailId,
  saveRegistration,
  type Registration,
  type SandboxStore,
} from '../store/sandbox.js';

export type Credentials = { providerId: string; apiKey: string; signingSecret: string; railId: string };

type RegistrationDeps = {
  store: SandboxStore;
  box: SecretBox;
  baseUrl: string;
  adminToken: string;
  log: Logger;
};

/** The sandbox rail serves every network of the sandbox countries, in both currencies. */
export const SANDBOX_RAIL = {
  transport: 'pull',
  environment: 'sandbox',
  networks: ['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY'],
  countries: ['CM', 'CI', 'SN'],
  currencies: ['XAF', 'XOF'],
  // Refunds and payouts of sandbox payments go out on it too.
  supportsPayout: true,
  // Ahead of a rail created with the default priority (100), so sandbox payments follow the
  // documented test numbers; a provider wiring its own sandbox rail outranks this one on
  // purpose with a priority below 50 (0 would leave it no way to, since the older rail wins a tie).
  priority: 50,
} as const;

async function createProvider(deps: RegistrationDeps): Promise<Registration> {
  const created = await callServiceApi<{ id: string; apiKey: string; signingSecret: string }>(
    { baseUrl: deps.baseUrl, apiKey: deps.adminToken },
    'POST',
    '/admin/providers',
    {
      name: 'sandbox',
    },
  );
  const registration: Registration = {
    _id: 'sandbox',
    providerId: created.id,
    sealedApiKey: deps.box.seal(created.apiKey),
    sealedSigningSecret: deps.box.seal(created.signingSecret),
    railId: null,
    createdAt: new Date(),
  };
  await saveRegistration(deps.store, registration);
  deps.log.info({ providerId: created.id }, 'sandbox provider registered');
  return registration;
}

/** Stored credentials, or null when they cannot be read back (another SERVICE_SECRET_KEY). */
function openCredentials(deps: RegistrationDeps, registration: Registration) {
  try {
    return {
      apiKey: deps.box.open(registration.sealedApiKey),
      signingSecret: deps.box.open(registration.sealedSigningSecret),
    };
  } catch {
    return null;
  }
}

/**
 * Registers once and reuses the credentials on every restart: the provider, then its pull
 * rail, tested and activated (both idempotent on the router's side). Lost credentials
 * (unreadable, or a key the gateway no longer accepts) mean a new provider: nobody can
 * recover a secret that was shown once.
 */
export async function ensureRegistered(deps: RegistrationDeps): Promise<Credentials> {
  let registration = (await findRegistration(deps.store)) ?? (await createProvider(deps));
  let secrets = openCredentials(deps, registration);
  if (!secrets) {
    registration = await createProvider(deps);
    secrets = openCredentials(deps, registration)!;
  }
  try {
    return await ensureRail(deps, registration, secrets);
  } catch (error) {
    if (!(error instanceof ServiceCallError) || error.status !== 401) throw error;
    deps.log.warn(
      { providerId: registration.providerId },
      'stored provider key refused; registering a new sandbox provider',
    );
    registration = await createProvider(deps);
    return ensureRail(deps, registration, openCredentials(deps, registration)!);
  }
}

async function ensureRail(
  deps: RegistrationDeps,
  registration: Registration,
  secrets: { apiKey: string; signingSecret: string },
): Promise<Credentials> {
  const api = { baseUrl: deps.baseUrl, apiKey: secrets.apiKey };
  let railId = registration.railId;
  if (!railId) {
    const rail = await callServiceApi<{ id: string }>(api, 'POST', '/provider/rails', SANDBOX_RAIL);
    railId = rail.id;
    await saveRailId(deps.store, railId);
  } else {
    // A rail registered before the sandbox paid out gains payout support on the next start.
    await callServiceApi(api, 'PATCH', `/provider/rails/${railId}`, { supportsPayout: true });
  }
  await callServiceApi(api, 'POST', `/provider/rails/${railId}/test`);
  const active = await callServiceApi<{ status: string }>(api, 'POST', `/provider/rails/${railId}/activate`);
  deps.log.info({ providerId: registration.providerId, railId, status: active.status }, 'sandbox rail ready');
  return { providerId: registration.providerId, railId, ...secrets };
}

/** One line on why a registration attempt failed: a service's code, or the socket error. */
function failureReason(error: unknown): string {
  if (error instanceof ServiceCallError) return `${error.status} ${error.code}`;
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}

/** Retries until the gateway answers (it may start after us), backing off up to 10 s. */
export async function registerWithRetry(
  deps: RegistrationDeps,
  signal: AbortSignal,
): Promise<Credentials | null> {
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      return await ensureRegistered(deps);
    } catch (error) {
      const delay = backoffDelay(attempt, { baseMs: 500, maxMs: 10_000 });
      // The gateway usually starts with us: the first refusal is expected, not a warning.
      deps.log[attempt === 0 ? 'info' : 'warn'](
        { reason: failureReason(error), retryInMs: delay },
        'sandbox registration failed; retrying',
      );
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
  }
  return null;
}
