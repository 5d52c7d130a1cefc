import type { Logger } from '@mmp/platform';
import type { PaymentEventData } from '@mmp/protocol';
import { paymentVersion } from '../domain/payment-version.js';
import {
  customerIdFor,
  deriveProfile,
  profileOf,
  recordFacts,
  type DerivedProfile,
} from '../domain/profile.js';
import type { CustomerStore, TransactionDoc } from '../store/customers.js';

/**
 * Projects payment events onto customer profiles. Two steps, each safe to repeat:
 * 1. keep, per payment, the snapshot of its greatest event (`paymentVersion`), a
 *    compare-and-set on the version, so duplicates and late older events change nothing;
 * 2. derive the customer's profile again from all its payment records (summed and sorted
 *    by the store for a customer with many) and write it
 *    guarded on the customer's change counter, so a slower derivation never wins over a
 *    newer one. The profile is a pure function of the records, hence exact.
 */
export function createPaymentProjector(deps: { store: CustomerStore; log: Logger }) {
  const { store, log } = deps;

  async function refreshCustomer(record: TransactionDoc, externalId: string): Promise<void> {
    // A new customer starts from this one payment until the derivation below completes it.
    const initial = deriveProfile([record]) as DerivedProfile;
    const seq = await store.touchCustomer({
      id: record.customerId,
      projectId: record.projectId,
      livemode: record.livemode,
      externalId,
      ...initial,
    });
    const summary = await store.summaryOf(record.customerId);
    // Empty only while a rebuild wiped the records under us; the replay refreshes it again.
    if (!summary) return;
    const written = await store.writeProfile(record.customerId, seq, profileOf(summary));
    if (!written)
      log.debug({ customerId: record.customerId }, 'newer change of the customer derives the profile');
  }

  return {
    /**
     * Applies one event. `mustRefresh` forces step 2 even when step 1 changed nothing:
     * a redelivered event may be one whose first delivery crashed between the two steps.
     */
    async apply(event: ProjectedEvent, options: { mustRefresh: boolean }): Promise<void> {
      const { payment } = event.data;
      if (!payment.customerId) return;
      const occurredAt = new Date(event.occurredAt).toISOString();
      const record: TransactionDoc = {
        _id: payment.id,
        customerId: customerIdFor(payment.projectId, payment.livemode, payment.customerId),
        projectId: payment.projectId,
        livemode: payment.livemode,
        payment,
        version: paymentVersion(payment, { eventId: event.id, occurredAt }),
        eventId: event.id,
        occurredAt,
        createdAt: new Date(payment.createdAt).toISOString(),
        ...recordFacts({ payment, occurredAt }),
      };
      const outcome = await store.saveTransaction(record);
      if (outcome === 'stale' && !options.mustRefresh) return;
      await refreshCustomer(record, payment.customerId);
    },
  };
}
export type PaymentProjector = ReturnType<typeof createPaymentProjector>;

/** What the projection reads of a payment event: its id, time and snapshot. */
export type ProjectedEvent = { id: string; occurredAt: string; data: PaymentEventData };
