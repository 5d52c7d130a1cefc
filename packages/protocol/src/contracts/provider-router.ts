import { z } from 'zod';
import { defineHttpOperation, defineOperation, eventsOf, httpOperationsOf } from '../bus/contract.js';
import {
  ExecutionOutcomeData,
  OrderCreatedData,
  RoutingDecisionData,
  SettlementReceivedData,
  PayoutRouteAnswer,
  PayoutRouteQuery,
} from '../bus/events.js';
import {
  ProviderMappingView,
  ProviderView,
  ProviderWithSigningSecret,
  RailView,
  ReconciliationReport,
  SettlementReceipt,
} from '../provider/views.js';
import { ExecutionOrder } from '../provider/protocol-v1.js';
import { Network } from '../network.js';

/** The longest a rail test's probe may wait for the endpoint (provider-router's RAIL_TEST_TIMEOUT_MS). */
export const RAIL_TEST_MAX_MS = 10_000;

/** A portal route: the provider (its key) or an admin acting for it. */
const portalRoute = httpOperationsOf({ service: 'provider-router', actors: ['provider', 'admin'] });

/** An operators' route (admin token). */
const adminRoute = httpOperationsOf({ service: 'provider-router', actors: ['admin'] });

/** An operation on one rail that answers the rail as it now stands, or 404. */
const ANSWERS_THE_RAIL = { responses: { 200: RailView }, errors: ['resource_not_found'] } as const;

/** The provider portal (provider key `sk_…`), mirrored for admins under /v1/admin/providers/:providerId. */
export const providerPortalApi = {
  profile: portalRoute({
    name: 'providers.get',
    responses: { 200: ProviderView },
    errors: ['resource_not_found'],
    summary: 'The authenticated provider',
  }),
  createRail: portalRoute({
    name: 'rails.create',
    responses: { 201: RailView.extend({ secret: z.string().optional() }) },
    errors: ['validation_error', 'resource_not_found'],
    summary:
      'Create a rail in PENDING; a webhook endpoint must be a public address (422 naming endpoint otherwise); a webhook rail gets its whsec_ secret, returned this once',
  }),
  listRails: portalRoute({
    name: 'rails.list',
    responses: { 200: z.object({ data: z.array(RailView) }) },
    errors: ['resource_not_found'],
    summary: "List the provider's rails (never their secrets)",
  }),
  getRail: portalRoute({
    name: 'rails.get',
    ...ANSWERS_THE_RAIL,
    summary: 'Read a rail: state, last test result and reason, certified badge',
  }),
  testRail: portalRoute({
    name: 'rails.test',
    responses: { 200: RailView },
    // The probe's own deadline (RAIL_TEST_TIMEOUT_MS, at most RAIL_TEST_MAX_MS) and the
    // rail's address check fit in it: a silent endpoint gets its timeout result, never a 503.
    waitMs: RAIL_TEST_MAX_MS + 5_000,
    errors: ['resource_not_found', 'invalid_state'],
    summary:
      'Test a rail: a signed health.check with a fresh nonce (5 s) to its public HTTPS endpoint; HTTP 200 echoing the nonce makes a PENDING rail TESTED, anything else (a private address included) leaves it PENDING with the reason',
  }),
  activateRail: portalRoute({
    name: 'rails.activate',
    responses: { 200: RailView },
    errors: ['resource_not_found', 'invalid_state'],
    summary:
      'Activate a TESTED rail; a live rail also needs the CERTIFIED badge (409 invalid_state otherwise)',
  }),
  updateRail: portalRoute({
    name: 'rails.update',
    responses: { 200: RailView },
    errors: ['validation_error', 'resource_not_found', 'invalid_state'],
    summary:
      "Change a rail's priority, endpoint or payout support; a webhook endpoint must be a public address (422 naming endpoint otherwise), and a new one puts the rail back to PENDING until it is tested and activated again",
  }),
  disableRail: portalRoute({
    name: 'rails.disable',
    ...ANSWERS_THE_RAIL,
    summary:
      'Take a rail out of service: no new order is routed to it (failovers included); orders already out finish and their settlements apply. Idempotent',
  }),
  enableRail: portalRoute({
    name: 'rails.enable',
    ...ANSWERS_THE_RAIL,
    summary:
      'Put a rail back in service: an ACTIVE rail takes new orders again (its state is unchanged). Idempotent',
  }),
  deleteRail: portalRoute({
    name: 'rails.delete',
    responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) },
    errors: ['resource_not_found', 'rail_has_open_orders'],
    summary:
      'Delete a rail with no open order (409 rail_has_open_orders otherwise: take it out of service and let its orders finish first); its past orders and settlements stay',
  }),
  rollRailSecret: portalRoute({
    name: 'rails.roll-secret',
    responses: { 200: RailView.extend({ secret: z.string() }) },
    errors: ['resource_not_found', 'invalid_state'],
    summary: "Roll a webhook rail's whsec_ secret; the new secret is returned once",
  }),
  protocolSchema: portalRoute({
    name: 'schema',
    responses: { 200: z.record(z.string(), z.unknown()) },
    summary: 'JSON Schema (draft 2020-12) of SettlementEvent v1, generated from the schema that validates',
  }),
};

/** The settlement webhook: signed by the provider over the exact raw body, verified here. */
export const settlementsApi = {
  ingest: defineHttpOperation({
    service: 'provider-router',
    name: 'settlements.ingest',
    actors: ['public'],
    responses: { 200: SettlementReceipt },
    errors: [
      'signature_invalid',
      'validation_error',
      'duplicate_event',
      'resource_not_found',
      'invalid_request',
    ],
    summary:
      'Receive a SettlementEvent (x-service-signature: hex HMAC-SHA256 of the exact body with the signing secret): 200, 403 signature, 422 every invalid field (settled_at before its order or in the future included), 409 duplicate idempotency_key; a body without protocol_version goes through the provider mapping; a second outcome for an order is kept for reconciliation, never applied',
  }),
};

/** What operators do with providers (admin token). */
export const providersAdminApi = {
  list: adminRoute({
    name: 'providers.list',
    responses: { 200: z.object({ data: z.array(ProviderView) }) },
    summary: 'List providers',
  }),
  getMapping: adminRoute({
    name: 'providers.get-mapping',
    responses: { 200: ProviderMappingView },
    errors: ['resource_not_found'],
    summary: "The provider's declarative mapping of proprietary settlement payloads (null when none)",
  }),
  setMapping: adminRoute({
    name: 'providers.mapping.set',
    responses: { 200: ProviderMappingView },
    errors: ['validation_error', 'resource_not_found'],
    summary: "Set the provider's declarative mapping of proprietary (non protocol-v1) settlement payloads",
  }),
  rollSigningSecret: adminRoute({
    name: 'providers.roll-signing-secret',
    responses: { 200: ProviderWithSigningSecret },
    errors: ['resource_not_found'],
    summary: "Roll the provider's settlement signing secret; the new secret is returned once",
  }),
  reconciliation: adminRoute({
    name: 'reconciliation.report',
    responses: { 200: ReconciliationReport },
    errors: ['invalid_request', 'resource_not_found'],
    summary: 'Orders against settlements of one provider, environment and day',
  }),
};

/** The state of a payment's order, for payments' verify. */
export const OrderStatus = z.object({
  order: z
    .object({
      orderKey: z.string(),
      /** ROUTED, ACCEPTED or FAILED; a state added later is read as "nothing to apply". */
      status: z.string(),
      railId: z.string().nullable(),
      providerId: z.string().nullable().optional(),
      failureCode: z.string().nullable().default(null),
      decisions: z.array(z.object({ reason: z.string() }).loose()).default([]),
    })
    .loose()
    .nullable(),
  settlement: SettlementReceivedData.nullable(),
});
export type OrderStatus = z.infer<typeof OrderStatus>;

/** What provider-delivery needs to deliver an order on a rail: the secret it signs with. */
export const RailCredentials = z.object({
  railId: z.string(),
  providerId: z.string(),
  transport: z.enum(['webhook', 'pull']),
  endpoint: z.string().nullable(),
  secret: z.string().nullable(),
});
export type RailCredentials = z.infer<typeof RailCredentials>;

export const routerQueries = {
  orderStatus: defineOperation({
    service: 'provider-router',
    name: 'orders.status',
    actors: ['service'],
    callers: ['payments'],
    request: z.strictObject({ paymentId: z.string().min(1) }),
    reply: OrderStatus,
    summary: "A payment's order and its latest final settlement",
  }),
  railCredentials: defineOperation({
    service: 'provider-router',
    name: 'rails.credentials',
    actors: ['service'],
    callers: ['provider-delivery'],
    request: z.strictObject({
      railId: z.string().min(1),
      /** The order to deliver: a certification order may name the fault relay as its endpoint. */
      orderKey: z.string().min(1).optional(),
    }),
    reply: RailCredentials,
    errors: ['resource_not_found'],
    summary: "A rail's transport, endpoint and secret, for signing its orders",
  }),
  payoutRoute: defineOperation({
    service: 'provider-router',
    name: 'payouts.route',
    actors: ['service'],
    callers: ['payments'],
    request: PayoutRouteQuery,
    reply: PayoutRouteAnswer,
    summary:
      'Whether an ACTIVE payout-capable rail of the environment could take a payout now (the gate before a refund or payout is debited)',
  }),
  createProvider: defineOperation({
    service: 'provider-router',
    name: 'providers.create',
    actors: ['admin'],
    callers: ['gateway'],
    request: z.object({ name: z.string().trim().min(1).max(100) }),
    reply: ProviderWithSigningSecret,
    errors: ['validation_error'],
    summary: 'A new provider with its settlement signing secret, shown once (the gateway issues its API key)',
  }),
};

const routerEvent = eventsOf('provider-router');

export const routerEvents = {
  orderCreated: routerEvent({
    type: 'order.created',
    data: OrderCreatedData,
    consumers: ['provider-delivery'],
    summary: 'An order for a rail (again with the same orderKey on failover, with the new railId)',
  }),
  executionAccepted: routerEvent({
    type: 'execution.accepted',
    data: ExecutionOutcomeData,
    consumers: ['payments'],
    summary: "A rail accepted the payment's order",
  }),
  executionFailed: routerEvent({
    type: 'execution.failed',
    data: ExecutionOutcomeData,
    consumers: ['payments'],
    summary: 'No rail could take the order (after failover), or the payer was refused',
  }),
  settlementReceived: routerEvent({
    type: 'settlement.received',
    data: SettlementReceivedData,
    consumers: ['payments'],
    summary: 'A valid SettlementEvent matched to an order: the outcome that decides the payment',
  }),
  routingDecided: routerEvent({
    type: 'routing.decided',
    data: RoutingDecisionData,
    consumers: ['payments'],
    summary: 'The rail chosen for a payment (or none), why, and the rails passed over',
  }),
};

/** A rail as certification needs it: where and how its adapter is reached, and with which secrets. */
export const CertificationTarget = z.object({
  rail: RailCredentials.extend({
    environment: z.enum(['sandbox', 'live']),
    status: z.enum(['PENDING', 'TESTED', 'ACTIVE']),
    networks: z.array(Network),
    countries: z.array(z.string()),
    currencies: z.array(z.string()),
    supportsPayout: z.boolean(),
  }),
  /** The provider's settlement signing secret: cases 4 to 7 sign their variants with it. */
  signingSecret: z.string(),
});
export type CertificationTarget = z.infer<typeof CertificationTarget>;

/** An order of a certification run, on one rail, never routed, never failed over. */
export const CertificationOrderRequest = z.object({
  runId: z.string().min(1),
  providerId: z.string().min(1),
  railId: z.string().min(1),
  /** The exact payment.execute or payout.execute body; its idempotency_key is the order key. */
  payload: ExecutionOrder,
  /** Cases 9 to 11: delivery goes to the runner's fault relay instead of the rail's endpoint. */
  relayEndpoint: z.url().nullable(),
  /** Pull case 11: an order that expires before anyone can pull it. */
  expiresInMs: z.number().int().nonnegative(),
});
export type CertificationOrderRequest = z.infer<typeof CertificationOrderRequest>;

/** Where a certification order stands: its delivery, its settlement, and refused repeats. */
export const CertificationOrderStatus = z.object({
  orderKey: z.string(),
  status: z.enum(['ROUTED', 'ACCEPTED', 'FAILED']),
  lastClassification: z.string().nullable(),
  failureCode: z.string().nullable(),
  reason: z.string().nullable(),
  settlement: z
    .object({
      status: z.string(),
      amount: z.string(),
      rawBody: z.string(),
      /** Settlements with the same idempotency_key refused as duplicates (409): a second execution shows here. */
      duplicatesRefused: z.number().int(),
    })
    .nullable(),
});
export type CertificationOrderStatus = z.infer<typeof CertificationOrderStatus>;

const certificationQuery = <Req extends z.ZodType, Rep extends z.ZodType>(
  name: string,
  request: Req,
  reply: Rep,
  summary: string,
) =>
  defineOperation({
    service: 'provider-router',
    name,
    actors: ['service'],
    callers: ['certification-runner'],
    request,
    reply,
    errors: ['resource_not_found', 'invalid_state'],
    summary,
  });

/** What the certification runner asks of provider-router (router never calls the runner). */
export const routerForCertification = {
  target: certificationQuery(
    'certification.target',
    z.strictObject({ providerId: z.string().min(1), railId: z.string().min(1) }),
    CertificationTarget,
    "A provider's rail with its secret and the provider's signing secret, for a certification run",
  ),
  createOrder: certificationQuery(
    'certification.order',
    CertificationOrderRequest,
    z.object({ orderKey: z.string() }),
    'Create a certification order on one rail: delivered by the real transport (or to the fault relay), never routed elsewhere, never seen by payments',
  ),
  orderStatus: certificationQuery(
    'certification.order-status',
    z.strictObject({ orderKey: z.string().min(1) }),
    CertificationOrderStatus,
    "A certification order's delivery outcome and settlement",
  ),
};
