import { randomBytes } from 'node:crypto';
import { postToProvider, rollSealedSecret, secretHint, setFields, updateIfUnchanged } from '@mmp/platform';
import { appError, newWebhookSecret } from '@mmp/protocol';
import { CLOSED_BREAKER } from '../domain/breaker.js';
import { healthCheckBody, judgeHealthCheck } from '../domain/health-check.js';
import { newRailId } from '../domain/provider.js';
import {
  activationRefusal,
  parseRailInput,
  parseRailUpdate,
  statusAfterTest,
  updatedRail,
  type Rail,
  type RailTestResult,
} from '../domain/rail.js';
import { unfinishedOrdersOn } from '../store/orders.js';
import { describeChannel, railBadge, uncertifiedChannels } from '../domain/certification.js';
import { certifiedChannelIds } from '../store/channel-badges.js';
import { findProvider } from '../store/providers.js';
import {
  activateRail as markActive,
  deleteProviderRail,
  findProviderRail,
  insertRail,
  updateRailSettings,
} from '../store/rails.js';
import { outcomesOf } from '../store/settlements.js';
import { isoNow, notFound, rolledMeanwhile, type RouterDeps } from './deps.js';

/** A rail of the acting provider; another provider's rail is "not found", never "forbidden". */
export async function ownRail(
  deps: RouterDeps,
  providerId: string,
  railId: string | undefined,
): Promise<Rail> {
  const rail = railId ? await findProviderRail(deps.db, providerId, railId) : null;
  if (!rail) throw notFound('Rail');
  return rail;
}

/** A new PENDING rail; a webhook rail's whsec_ secret is returned this once. */
export async function createRail(
  deps: RouterDeps,
  providerId: string,
  body: unknown,
): Promise<{ rail: Rail; secret: string | null }> {
  const provider = await findProvider(deps.db, providerId);
  if (!provider) throw notFound('Provider');
  const input = parseRailInput(body ?? {}, deps.config.allowLoopback);
  const secret = input.transport === 'webhook' ? newWebhookSecret() : null;
  const now = isoNow(deps);
  const rail: Rail = {
    _id: newRailId(),
    providerId: provider._id,
    transport: input.transport,
    endpoint: input.endpoint ?? null,
    sealedSecret: secret ? deps.box.seal(secret) : null,
    secretHint: secret ? secretHint(secret) : null,
    networks: input.networks,
    countries: input.countries,
    currencies: input.currencies,
    supportsPayout: input.supportsPayout,
    environment: input.environment,
    priority: input.priority,
    status: 'PENDING',
    inService: true,
    certified: false,
    lastTest: null,
    breaker: CLOSED_BREAKER,
    breakerRev: 0,
    createdAt: now,
    updatedAt: now,
  };
  // A rail on channels certified already (a live rail after its sandbox run) carries the badge at once.
  Object.assign(rail, railBadge(rail, await certifiedChannelIds(deps.db, provider._id)));
  await insertRail(deps.db, rail);
  return { rail, secret };
}

export async function rollRailSecret(deps: RouterDeps, rail: Rail): Promise<{ rail: Rail; secret: string }> {
  if (rail.transport !== 'webhook')
    throw appError('invalid_state', 'A pull rail has no webhook secret to roll.');
  const secret = newWebhookSecret();
  const updated = await rollSealedSecret(
    deps.db.rails,
    rail,
    { sealed: 'sealedSecret', hint: 'secretHint' },
    { secret, box: deps.box, at: isoNow(deps) },
  );
  if (!updated) throw rolledMeanwhile();
  return { rail: updated, secret };
}

/** ACTIVE from TESTED (a live rail also certified); activating an ACTIVE rail changes nothing. */
export async function activateRail(deps: RouterDeps, rail: Rail): Promise<Rail> {
  if (rail.status === 'ACTIVE') return rail;
  const missing = uncertifiedChannels(rail, await certifiedChannelIds(deps.db, rail.providerId));
  const refusal = activationRefusal(
    { ...rail, certified: missing.length === 0 },
    missing.map(describeChannel),
  );
  if (refusal) throw appError('invalid_state', refusal);
  const updated = await markActive(deps.db, rail._id, isoNow(deps));
  if (!updated) throw appError('invalid_state', 'The rail changed state meanwhile; read it and try again.');
  return updated;
}

/**
 * Webhook rail: a signed health.check with a fresh nonce to its endpoint, under the
 * outbound rules (a non-HTTPS or private endpoint fails without a call; a name is judged
 * where it connects). Pull rail: the provider itself asks for the test with its API key
 * over the same API it will fetch orders from, so that authenticated call is the proof.
 */
async function runTest(deps: RouterDeps, rail: Rail): Promise<Omit<RailTestResult, 'at'>> {
  if (rail.transport === 'pull') {
    return {
      ok: true,
      reason: 'pull transport: the provider reached the API with its key',
      httpStatus: null,
      latencyMs: null,
    };
  }
  const nonce = randomBytes(16).toString('hex');
  const exchange = await postToProvider(deps.http, {
    endpoint: rail.endpoint ?? '',
    secret: deps.box.open(rail.sealedSecret ?? ''),
    event: 'health.check',
    body: JSON.stringify(healthCheckBody(nonce, deps.now())),
    timeoutMs: deps.config.railTestTimeoutMs,
  });
  const result = judgeHealthCheck(exchange, nonce);
  deps.log.info({ railId: rail._id, ok: result.ok, httpStatus: result.httpStatus }, 'rail tested');
  return result;
}

/** Only a PENDING rail moves on a test (to TESTED); a failed test never demotes a rail. */
export async function testRail(deps: RouterDeps, rail: Rail): Promise<Rail> {
  const result = await runTest(deps, rail);
  const lastTest: RailTestResult = { ...result, at: isoNow(deps) };
  // Guarded on the state the test started from.
  const updated = await updateIfUnchanged(deps.db.rails, rail, ['status'], {
    $set: { status: statusAfterTest(rail.status, result.ok), lastTest, updatedAt: lastTest.at },
  });
  if (!updated)
    throw appError('invalid_state', 'The rail changed state during its test; read it and test again.');
  return updated;
}

/** Priority, endpoint or payout support; a new endpoint sends the rail back to PENDING. */
export async function updateRail(deps: RouterDeps, rail: Rail, body: unknown): Promise<Rail> {
  const update = parseRailUpdate(rail, body ?? {}, deps.config.allowLoopback);
  const updated = await updateRailSettings(deps.db, rail, updatedRail(rail, update, isoNow(deps)));
  if (!updated) throw appError('invalid_state', 'The rail changed meanwhile; read it and try again.');
  return updated;
}

/**
 * Out of service (`inService` false) or back, whatever the rail's status. Routing reads it on every order, failovers
 * included; delivery, pull fetches and settlements never look at it, so what is out finishes.
 */
export async function putInService(deps: RouterDeps, rail: Rail, inService: boolean): Promise<Rail> {
  const updated = await setFields(deps.db.rails, rail._id, { inService }, isoNow(deps));
  if (!updated) throw notFound('Rail');
  return updated;
}

/** The orders on a rail still awaiting delivery or settlement, oldest first. */
export async function openOrdersOn(deps: RouterDeps, railId: string): Promise<string[]> {
  const unfinished = await unfinishedOrdersOn(deps.db, railId, isoNow(deps));
  const settled = new Set(
    (
      await outcomesOf(
        deps.db,
        unfinished.map((order) => order._id),
      )
    ).map((s) => s.outcomeOf),
  );
  return unfinished
    .filter((order) => order.status === 'ROUTED' || !settled.has(order._id))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((order) => order._id);
}

/**
 * Deletes a rail with no open order. Its past orders and settlements stay (they name it by
 * id). An order routed to it between the check and the removal finds no credentials at
 * delivery and fails over like an unreachable rail.
 */
export async function deleteRail(deps: RouterDeps, rail: Rail): Promise<void> {
  const open = await openOrdersOn(deps, rail._id);
  if (open.length > 0) {
    throw appError(
      'rail_has_open_orders',
      `Rail ${rail._id} has ${open.length} open order(s) (first: ${open[0]}). Take it out of service, let them finish, then delete it.`,
    );
  }
  if (!(await deleteProviderRail(deps.db, rail.providerId, rail._id))) throw notFound('Rail');
}

/** What provider-delivery signs a rail's orders with. */
export function railCredentials(deps: RouterDeps, rail: Rail) {
  return {
    railId: rail._id,
    providerId: rail.providerId,
    transport: rail.transport,
    endpoint: rail.endpoint,
    secret: rail.sealedSecret ? deps.box.open(rail.sealedSecret) : null,
  };
}
