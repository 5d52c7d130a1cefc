import { z } from 'zod';
import {
  Currency,
  Network,
  appError,
  type Channel,
  fieldErrors,
  validationMessage,
  type FieldError,
} from '@mmp/protocol';
import { endpointFailureReason, outboundUrlRefusal } from '@mmp/platform';
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
  /** Every channel the rail serves is certified. */
  certified: boolean;
  /** The rail's channels that carry the badge; absent on rails stored before certification existed. */
  certifiedChannels?: Channel[];
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

/**
 * What a provider declares when it creates a rail. The endpoint's scheme is judged by the
 * test (so the specification's "non-HTTPS endpoint" row is reachable), its address here.
 */
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

/**
 * Where a rail's endpoint may never lead, whatever its scheme: loopback (unless the
 * development switch), private, link-local and the other internal ranges, an address being
 * judged in any spelling (`2130706433`, `[::ffff:7f00:1]`). A name is judged where it
 * connects (the rail test, every delivery), since what it resolves to now proves nothing later.
 */
export function railEndpointRefusal(endpoint: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return endpointFailureReason('not a URL');
  }
  url.protocol = 'https:';
  const refusal = outboundUrlRefusal(url.href, { allowLoopback });
  return refusal && endpointFailureReason(refusal);
}

function endpointRule(body: Record<string, unknown>, allowLoopback: boolean): string | null {
  if (body.transport === 'webhook' && body.endpoint === undefined) return 'a webhook rail needs an endpoint';
  if (body.transport === 'pull' && body.endpoint !== undefined)
    return 'a pull rail has no endpoint: the provider fetches its orders';
  return typeof body.endpoint === 'string' ? railEndpointRefusal(body.endpoint, allowLoopback) : null;
}

/** Validates a rail declaration, naming every invalid field at once (the endpoint rules included). */
export function parseRailInput(body: unknown, allowLoopback: boolean): RailInput {
  const result = RailInput.safeParse(body);
  const fields: FieldError[] = result.success ? [] : fieldErrors(result.error);
  const rule =
    body && typeof body === 'object' ? endpointRule(body as Record<string, unknown>, allowLoopback) : null;
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
  uncertified: readonly string[] = [],
): string | null {
  if (rail.status === 'PENDING') {
    const last = rail.lastTest
      ? ` Last test failed: ${rail.lastTest.reason}`
      : ' It has not been tested yet.';
    return `A rail must pass its test (state TESTED) before activation.${last}`;
  }
  if (rail.environment === 'live' && !rail.certified) {
    const channels = uncertified.length ? ` Not certified: ${uncertified.join(', ')}.` : '';
    return `A live rail needs a passing certification (CERTIFIED badge) on every channel it serves before activation; run the certification on a sandbox rail of the channel first.${channels}`;
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
    certifiedChannels: rail.certifiedChannels ?? [],
    lastTest: rail.lastTest,
    createdAt: rail.createdAt,
    updatedAt: rail.updatedAt,
  };
}
