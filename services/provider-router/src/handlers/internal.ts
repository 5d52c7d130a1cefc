import type { OperationHandler } from '@mmp/platform';
import type { routerForCertification, routerQueries } from '@mmp/protocol';
import { findOrder } from '../store/orders.js';
import { findRail } from '../store/rails.js';
import {
  certificationOrderStatus,
  certificationTarget,
  createCertificationOrder,
} from '../use-cases/certification.js';
import { notFound, type RouterDeps } from '../use-cases/deps.js';
import { orderStatus } from '../use-cases/order-status.js';
import { railCredentials } from '../use-cases/rails.js';
import { payoutRoute } from '../use-cases/route-transfer.js';

type Queries = typeof routerQueries;
type ForCertification = typeof routerForCertification;

/**
 * What other services ask provider-router: a payment's order and the payout gate (payments),
 * a rail's secret (provider-delivery).
 */
export function internalHandlers(deps: RouterDeps): {
  [K in 'orderStatus' | 'payoutRoute' | 'railCredentials']: OperationHandler<Queries[K]>;
} {
  return {
    orderStatus: ({ paymentId }) => orderStatus(deps, paymentId),
    payoutRoute: (query) => payoutRoute(deps, query),
    railCredentials: async ({ railId, orderKey }) => {
      const rail = await findRail(deps.db, railId);
      if (!rail) throw notFound('Rail');
      const credentials = railCredentials(deps, rail);
      // A certification order of the fault-relay cases goes to the runner's relay, signed as ever.
      const relay = orderKey ? (await findOrder(deps.db, orderKey))?.certification?.relayEndpoint : null;
      return relay ? { ...credentials, endpoint: relay } : credentials;
    },
  };
}

/** What the certification runner asks: the rail under test, its orders and their outcomes. */
export function certificationHandlers(deps: RouterDeps): {
  [K in keyof ForCertification]: OperationHandler<ForCertification[K]>;
} {
  return {
    target: ({ providerId, railId }) => certificationTarget(deps, providerId, railId),
    createOrder: (request) => createCertificationOrder(deps, request),
    orderStatus: ({ orderKey }) => certificationOrderStatus(deps, orderKey),
  };
}
