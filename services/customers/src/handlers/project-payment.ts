import type { Logger } from '@mmp/platform';
import type { PaymentEventData } from '@mmp/protocol';
import { paymentVersion } from '../domain/payment-version.js';
import { customerIdFor, profileOf, recordFacts } from '../domain/profile.js';
import type { CustomerStore, TransactionDoc } from '../store/customers.js';

/**
 * A refresh whose write loses this many times in a row to other refreshes of the same
 * customer gives up; its event is then delivered again (and refreshes again).
 */
const REFRESH_ATTEMPTS = 20;

/**
 * Projects payment events onto customer profiles. Two steps, each safe to repeat:
 * 1. keep, per payment, the snapshot of its greatest event (`paymentVersion`), a
 *    compare-and-set on the version, so duplicates and late older events change nothing;
 * 2. derive the customer's profile again from all its payment records (summed and sorted
 *    by the store for a customer with many) and write it guarded on the customer's change
 *    counter as read before the derivation. A write that finds the counter moved derives
 *    again: the write that came first may have read the records before this event's. So
 *    the last write always read every record saved before it. The profile is a pure
 *    function of the records, hence exact.
 */
export function createPaymentProjector(deps: { store: CustomerStore; log: Logger }) {
  const { store, log } = deps;

  async function refreshCustomer(record: TransactionDoc, externalId: string): Promise<void> {
    const id = record.customerId;
    for (let attempt = 1; attempt <= REFRESH_ATTEMPTS; attempt += 1) {
      const seq = await store.changeCounterOf(id);
      const summary = await store.summaryOf(id);
      // Empty only while a rebuild wiped the records under us; the replay refreshes it again.
      if (!summary) return;
      const profile = profileOf(summary);
      const written =
        seq === null
          ? await store.insertCustomer({
              id,
              projectId: record.projectId,
              livemode: record.livemode,
              externalId,
              ...profile,
            })
          : await store.writeProfile(id, seq, profile);
      if (written) return;
      log.debug({ customerId: id, attempt }, 'another change of the customer came first; deriving again');
    }
    throw new Error(`customer ${id}: ${REFRESH_ATTEMPTS} profile writes in a row lost to others`);
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
