import type { OperationHandler } from '@mmp/platform';
import type { routerQueries } from '@mmp/protocol';
import { findRail } from '../store/rails.js';
import { notFound, type RouterDeps } from '../use-cases/deps.js';
import { orderStatus } from '../use-cases/order-status.js';
import { railCredentials } from '../use-cases/rails.js';

type Queries = typeof routerQueries;

/** What other services ask provider-router: a payment's order (payments), a rail's secret (provider-delivery). */
export function internalHandlers(deps: RouterDeps): {
  [K in 'orderStatus' | 'railCredentials']: OperationHandler<Queries[K]>;
} {
  return {
    orderStatus: ({ paymentId }) => orderStatus(deps, paymentId),
    railCredentials: async ({ railId }) => {
      const rail = await findRail(deps.db, railId);
      if (!rail) throw notFound('Rail');
      return railCredentials(deps, rail);
    },
  };
}
