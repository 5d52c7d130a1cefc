import { z } from 'zod';
import {
  Currency,
  Network,
  ROOT_FIELD,
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
  /**
   * False while the provider has taken the rail out of service: routing passes it over,
   * whatever its status; orders already out finish. Rails stored before the field existed
   * lack it and are in service.
   */
  inService: boolean;
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

/**
 * What a provider may change on a rail. Strict, so a field that cannot change (transport,
 * networks, environment…) is named in the 422 instead of being ignored.
 */
export const RailUpdateInput = z
  .object({
    priority: RailInput.shape.priority.unwrap().optional(),
    endpoint: RailInput.shape.endpoint,
    supportsPayout: z.boolean().optional(),
  })
  .strict();
export type RailUpdateInput = z.infer<typeof RailUpdateInput>;

/**
 * Validates a change to `rail`, naming every invalid field at once: a pull rail has no
 * endpoint, and a webhook endpoint meets the same public-address rule as at creation.
 */
export function parseRailUpdate(
  rail: Pick<Rail, 'transport'>,
  body: unknown,
  allowLoopback: boolean,
): RailUpdateInput {
  const result = RailUpdateInput.safeParse(body);
  const fields: FieldError[] = result.success
    ? []
    : fieldErrors(result.error).map((f) =>
        f.field in RailInput.shape && f.message === 'unknown field'
          ? { ...f, message: 'cannot change on an existing rail: create a new rail instead' }
          : f,
      );
  const endpoint = body && typeof body === 'object' ? (body as Record<string, unknown>).endpoint : undefined;
  const rule =
    endpoint === undefined
      ? null
      : rail.transport === 'pull'
        ? 'a pull rail has no endpoint: the provider fetches its orders'
        : typeof endpoint === 'string'
          ? railEndpointRefusal(endpoint, allowLoopback)
          : null;
  if (rule && !fields.some((f) => f.field === 'endpoint')) fields.push({ field: 'endpoint', message: rule });
  if (result.success && Object.keys(result.data).length === 0)
    fields.push({ field: ROOT_FIELD, message: 'give at least one of priority, endpoint, supportsPayout' });
  if (!result.success || fields.length > 0)
    throw appError('validation_error', validationMessage(fields), fields);
  return result.data;
}

/**
 * The rail after `update`. A new endpoint proves nothing its old test did: the rail goes
 * back to PENDING, untested, and is tested and activated again before it takes orders.
 */
export function updatedRail(
  rail: Rail,
  update: RailUpdateInput,
  at: string,
): Pick<Rail, 'priority' | 'endpoint' | 'supportsPayout' | 'status' | 'lastTest' | 'updatedAt'> {
  const moved = update.endpoint !== undefined && update.endpoint !== rail.endpoint;
  return {
    priority: update.priority ?? rail.priority,
    endpoint: update.endpoint ?? rail.endpoint,
    supportsPayout: update.supportsPayout ?? rail.supportsPayout,
    status: moved ? 'PENDING' : rail.status,
    lastTest: moved ? null : rail.lastTest,
    updatedAt: at,
  };
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
    inService: rail.inService !== false,
    certified: rail.certified,
    certifiedChannels: rail.certifiedChannels ?? [],
    lastTest: rail.lastTest,
    createdAt: rail.createdAt,
    updatedAt: rail.updatedAt,
  };
}
