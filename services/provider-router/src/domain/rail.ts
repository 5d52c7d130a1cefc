import { z } from 'zod';
import { Currency, Network, appError, fieldErrors, validationMessage, type FieldError } from '@mmp/protocol';
import type { BreakerState } from './breaker.js';

export const RAIL_STATUSES = ['PENDING', 'TESTED', 'ACTIVE'] as const;
export type RailStatus = (typeof RAIL_STATUSES)[number];
export type RailEnvironment = 'sandbox' | 'live';
export type Transport = 'webhook' | 'pull';

export type RailTestResult = {
  ok: boolean;
  reason: string;
  httpStatus: number | null;
  latencyMs: number | null;
  at: string;
};

export type Rail = {
  _id: string;
  providerId: string;
  transport: Transport;
  endpoint: string | null;
  /** The whsec_ secret of a webhook rail, sealed; null for pull rails. */
  sealedSecret: string | null;
  secretHint: string | null;
  networks: Network[];
  countries: string[];
  currencies: Currency[];
  supportsPayout: boolean;
  environment: RailEnvironment;
  priority: number;
  status: RailStatus;
  certified: boolean;
  lastTest: RailTestResult | null;
  breaker: BreakerState;
  /** Bumped on every breaker write: the compare-and-set guard of breaker updates. */
  breakerRev: number;
  createdAt: string;
  updatedAt: string;
};

const nonEmptyUnique = <T extends z.ZodType>(item: T, name: string) =>
  z
    .array(item)
    .min(1, `${name} must list at least one value`)
    .refine((values) => new Set(values).size === values.length, `${name} must not repeat a value`);

/** What a provider declares when it creates a rail; the endpoint's scheme is judged by the test. */
export const RailInput = z
  .object({
    transport: z.enum(['webhook', 'pull']),
    endpoint: z.url({ protocol: /^https?$/, error: 'endpoint must be an http(s) URL' }).optional(),
    networks: nonEmptyUnique(Network, 'networks'),
    countries: nonEmptyUnique(
      z.string().regex(/^[A-Z]{2}$/, 'countries must be ISO 3166-1 alpha-2 codes'),
      'countries',
    ),
    currencies: nonEmptyUnique(Currency, 'currencies'),
    supportsPayout: z.boolean().default(false),
    environment: z.enum(['sandbox', 'live']),
    priority: z.number().int().min(0).max(1000).default(100),
  })
  .strict();
export type RailInput = z.infer<typeof RailInput>;

function endpointRule(body: Record<string, unknown>): string | null {
  if (body.transport === 'webhook' && body.endpoint === undefined) return 'a webhook rail needs an endpoint';
  if (body.transport === 'pull' && body.endpoint !== undefined)
    return 'a pull rail has no endpoint: the provider fetches its orders';
  return null;
}

/** Validates a rail declaration, naming every invalid field at once (the endpoint rule included). */
export function parseRailInput(body: unknown): RailInput {
  const result = RailInput.safeParse(body);
  const fields: FieldError[] = result.success ? [] : fieldErrors(result.error);
  const rule = body && typeof body === 'object' ? endpointRule(body as Record<string, unknown>) : null;
  if (rule && !fields.some((f) => f.field === 'endpoint')) fields.push({ field: 'endpoint', message: rule });
  if (!result.success || fields.length > 0)
    throw appError('validation_error', validationMessage(fields), fields);
  return result.data;
}

/** The rail state after a test: only PENDING moves (to TESTED); a failed test never demotes a rail. */
export function statusAfterTest(status: RailStatus, ok: boolean): RailStatus {
  return status === 'PENDING' && ok ? 'TESTED' : status;
}

/** Why a rail may not be activated now, or null when it may. */
export function activationRefusal(
  rail: Pick<Rail, 'status' | 'environment' | 'certified' | 'lastTest'>,
): string | null {
  if (rail.status === 'PENDING') {
    const last = rail.lastTest
      ? ` Last test failed: ${rail.lastTest.reason}`
      : ' It has not been tested yet.';
    return `A rail must pass its test (state TESTED) before activation.${last}`;
  }
  if (rail.environment === 'live' && !rail.certified) {
    return 'A live rail needs a passing certification (CERTIFIED badge) before activation; run the certification first.';
  }
  return null;
}

/** What providers and admins see of a rail: never its secret. */
export function railView(rail: Rail) {
  return {
    id: rail._id,
    providerId: rail.providerId,
    transport: rail.transport,
    endpoint: rail.endpoint,
    secretHint: rail.secretHint,
    networks: rail.networks,
    countries: rail.countries,
    currencies: rail.currencies,
    supportsPayout: rail.supportsPayout,
    environment: rail.environment,
    priority: rail.priority,
    status: rail.status,
    certified: rail.certified,
    lastTest: rail.lastTest,
    createdAt: rail.createdAt,
    updatedAt: rail.updatedAt,
  };
}
