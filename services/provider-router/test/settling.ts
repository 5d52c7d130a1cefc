import { ADMIN, paymentSnapshot, settlementEvent, startRouter } from './harness.js';
import { providersAdminApi } from '@mmp/protocol';
import { openRouterDb } from '../src/store/db.js';

/**
 * A router with one provider whose active rail serves SN, for the settlement tests: orders
 * to settle, SettlementEvents to send (unique transaction_ref each, settled now), and the
 * day's reconciliation.
 */
export async function startSettling(env: Record<string, string> = {}) {
  const h = await startRouter({ ORDER_TTL_SECONDS: '1', SETTLEMENT_CLOCK_SKEW_SECONDS: '60', ...env });
  const provider = await h.createProvider('Settling Co');
  await h.activeRail(provider.id, { countries: ['SN'] });
  let sequence = 0;
  return {
    h,
    provider,
    db: openRouterDb(h.running.context.store),
    /** A payment routed to the provider's rail, and its order. */
    async order(overrides: Parameters<typeof paymentSnapshot>[0] = {}) {
      const payment = paymentSnapshot(overrides);
      await h.initiate(payment, { network: 'ORANGE_MONEY', phone: '+221770000001', country: 'SN' });
      return { payment, order: await h.orderOf(payment.id) };
    },
    event(orderKey: string, overrides: Record<string, unknown> = {}) {
      sequence += 1;
      return settlementEvent(orderKey, { transaction_ref: `OM-${sequence}`, ...overrides });
    },
    /** A SettlementEvent sent as the provider, signed with its secret. */
    settle: (body: unknown) => h.settle(provider.id, provider.signingSecret, body),
    settleFailure: (body: unknown) => h.settleFailure(provider.id, provider.signingSecret, body),
    reconcile: (query: Record<string, string>) => h.call(providersAdminApi.reconciliation, { query }, ADMIN),
  };
}
