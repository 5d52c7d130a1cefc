import { dayBounds, reconcile } from '../domain/reconciliation.js';
import { reconciliationInputs } from '../store/settlements.js';
import { existingProvider } from './providers.js';
import type { RouterDeps } from './deps.js';

/** One provider's orders of one environment and UTC day against their settlements. */
export async function reconciliationReport(
  deps: RouterDeps,
  query: { providerId: string; date: string; livemode: boolean },
) {
  await existingProvider(deps, query.providerId);
  return reconcile({ ...query, ...(await reconciliationInputs(deps.db, query, dayBounds(query.date))) });
}
