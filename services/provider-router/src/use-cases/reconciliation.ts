import { dayBounds, reconcile } from '../domain/reconciliation.js';
import { ordersCreatedWithin } from '../store/orders.js';
import {
  mismatchesReceivedWithin,
  settlementsOfOrders,
  settlementsReceivedWithin,
} from '../store/settlements.js';
import { existingProvider } from './providers.js';
import type { RouterDeps } from './deps.js';

/** One provider's orders of one environment and UTC day against their settlements. */
export async function reconciliationReport(
  deps: RouterDeps,
  query: { providerId: string; date: string; livemode: boolean },
) {
  const { providerId, date, livemode } = query;
  await existingProvider(deps, providerId);
  const day = dayBounds(date);
  const orders = await ordersCreatedWithin(deps.db, providerId, livemode, day);
  return reconcile({
    providerId,
    date,
    livemode,
    orders,
    settlementsOfOrders: await settlementsOfOrders(
      deps.db,
      orders.map((order) => order._id),
    ),
    settlementsOfDay: await settlementsReceivedWithin(deps.db, providerId, day),
    mismatches: await mismatchesReceivedWithin(deps.db, providerId, livemode, day),
  });
}
