import {
  appError,
  certificationPaymentId,
  parseMajorAmount,
  type CertificationOrderRequest,
  type CertificationOrderStatus,
  type CertificationTarget,
  type ChannelBadgeData,
} from '@mmp/protocol';
import { setFields } from '@mmp/platform';
import { channelBadgeId, railBadge } from '../domain/certification.js';
import { routedOrder } from '../domain/order.js';
import { orderCreatedEvent } from '../domain/order-events.js';
import { certifiedChannelIds, recordChannelBadge } from '../store/channel-badges.js';
import { findOrder, insertOrder } from '../store/orders.js';
import { findProvider } from '../store/providers.js';
import { listProviderRails } from '../store/rails.js';
import { findSettlementByKey } from '../store/settlements.js';
import { isoNow, notFound, type RouterDeps } from './deps.js';
import { ownRail, railCredentials } from './rails.js';

/** The rail a run certifies, with what its cases sign with. */
export async function certificationTarget(
  deps: RouterDeps,
  providerId: string,
  railId: string,
): Promise<CertificationTarget> {
  const rail = await ownRail(deps, providerId, railId);
  const provider = await findProvider(deps.db, providerId);
  if (!provider) throw notFound('Provider');
  return {
    rail: {
      ...railCredentials(deps, rail),
      environment: rail.environment,
      status: rail.status,
      networks: rail.networks,
      countries: rail.countries,
      currencies: rail.currencies,
      supportsPayout: rail.supportsPayout,
    },
    signingSecret: deps.box.open(provider.sealedSigningSecret),
  };
}

/**
 * An order of a certification run on exactly the rail under test, sent through the real
 * transport by the same order.created as any payment's. Never on a live rail.
 */
export async function createCertificationOrder(
  deps: RouterDeps,
  request: CertificationOrderRequest,
): Promise<{ orderKey: string }> {
  const rail = await ownRail(deps, request.providerId, request.railId);
  if (rail.environment !== 'sandbox')
    throw appError('invalid_state', 'Certification never sends an order to a live rail.');
  const { payload } = request;
  const amount = parseMajorAmount(payload.amount);
  if (!amount.ok) throw appError('validation_error', amount.message);
  const certificationRail = {
    rail,
    halfOpenTrial: false,
    reason: `certification run ${request.runId}`,
    skipped: [],
  };
  const { order } = routedOrder(
    {
      _id: payload.idempotency_key,
      paymentId: certificationPaymentId(payload.idempotency_key),
      projectId: 'certification',
      livemode: false,
      amount: amount.francs,
      currency: payload.currency,
      criteria: {
        environment: 'sandbox',
        network: payload.network,
        currency: payload.currency,
        country: payload.country,
      },
      transactionRef: payload.transaction_ref,
      payload,
      certification: { runId: request.runId, relayEndpoint: request.relayEndpoint },
    },
    certificationRail,
    deps.now(),
    request.expiresInMs,
  );
  await insertOrder(deps.outbox, deps.db, order, [orderCreatedEvent(order, rail, order.createdAt)]);
  return { orderKey: order._id };
}

export async function certificationOrderStatus(
  deps: RouterDeps,
  orderKey: string,
): Promise<CertificationOrderStatus> {
  const order = await findOrder(deps.db, orderKey);
  if (!order?.certification || !order.providerId) throw notFound('Certification order');
  const settlement =
    (await deps.db.settlements.findOne({ outcomeOf: order._id })) ??
    (await findSettlementByKey(deps.db, order.providerId, order._id));
  return {
    orderKey: order._id,
    status: order.status,
    lastClassification: order.lastClassification,
    failureCode: order.failureCode,
    reason: order.decisions.at(-1)?.reason ?? null,
    settlement: settlement && {
      status: settlement.status,
      amount: settlement.amount,
      rawBody: settlement.rawBody,
      duplicatesRefused: settlement.duplicatesRefused ?? 0,
    },
  };
}

/** Brings the badge of each of the provider's rails in step with its channels' badges. */
export async function refreshRailBadges(deps: RouterDeps, providerId: string): Promise<void> {
  const certified = await certifiedChannelIds(deps.db, providerId);
  for (const rail of await listProviderRails(deps.db, providerId)) {
    const badge = railBadge(rail, certified);
    if (JSON.stringify(badge.certifiedChannels) !== JSON.stringify(rail.certifiedChannels ?? []))
      await setFields(deps.db.rails, rail._id, badge, isoNow(deps));
  }
}

/** certification.channel-(un)certified: the channel's badge as the latest full run decided. */
export async function applyChannelBadge(
  deps: RouterDeps,
  certified: boolean,
  data: ChannelBadgeData,
): Promise<void> {
  const recorded = await recordChannelBadge(deps.db, {
    _id: channelBadgeId(data.providerId, data.channel),
    providerId: data.providerId,
    channel: data.channel,
    certified,
    runId: data.runId,
    railId: data.railId,
    decidedAt: data.decidedAt,
  });
  if (!recorded) deps.log.info({ runId: data.runId }, 'older certification decision; badge unchanged');
  // Refreshed either way: a redelivery after a crash between the two writes finishes the job.
  await refreshRailBadges(deps, data.providerId);
}
