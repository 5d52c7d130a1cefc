import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSnapshot } from '@mmp/protocol';
import { openCustomerTestStore, type CustomerTestStore } from '../../test/store.js';
import { transactionRecords } from '../../test/arbitraries.js';
import { paymentVersion } from '../domain/payment-version.js';
import { recordFacts, summarize, type TransactionRecord } from '../domain/profile.js';
import {
  FACTS_BATCH,
  SUMMARIZE_READING_UP_TO,
  type CustomerStore,
  type TransactionDoc,
} from './customers.js';

/**
 * A customer with many payments is summarized by the store (counts, sums and the first
 * entries of indexes) rather than from its records read whole. These tests hold the store's
 * figures to `summarize` over the same records, and count what the store reads.
 */

let opened: CustomerTestStore;
let store: CustomerTestStore['store'];
let reads: CustomerTestStore['reads'];
let customers: CustomerStore;
let customerCount = 0;

beforeAll(async () => {
  opened = await openCustomerTestStore('summary');
  ({ store, reads, customers } = opened);
});

afterAll(() => opened.close());

function transactionDoc(customerId: string, record: TransactionRecord): TransactionDoc {
  const { payment, occurredAt } = record;
  return {
    _id: payment.id,
    customerId,
    projectId: payment.projectId,
    livemode: payment.livemode,
    payment,
    version: paymentVersion(payment, { eventId: `evt_${payment.id}`, occurredAt }),
    eventId: `evt_${payment.id}`,
    occurredAt,
    createdAt: payment.createdAt,
    ...recordFacts(record),
  };
}

const manyRecords = transactionRecords({
  minLength: SUMMARIZE_READING_UP_TO + 1,
  maxLength: SUMMARIZE_READING_UP_TO + 40,
});

/**
 * A new customer, and its records under payment ids of its own: the store keeps one record
 * per payment id, and the generators draw the same ids for different customers.
 */
function newCustomer(records: TransactionRecord[] = []) {
  const customerId = `cus_${(customerCount += 1)}`;
  const own = records.map((r) => ({ ...r, payment: { ...r.payment, id: `${r.payment.id}_${customerId}` } }));
  return { customerId, records: own };
}

describe("a customer's summary", () => {
  it('says what summarize says of all its payments, and reads a handful of them, for a customer with many', async () => {
    await fc.assert(
      fc.asyncProperty(manyRecords, async (drawn) => {
        const { customerId, records } = newCustomer(drawn);
        for (const r of records) await customers.saveTransaction(transactionDoc(customerId, r));
        reads.reset();
        expect(await customers.summaryOf(customerId)).toEqual(summarize(records));
        // The latest settled, the first created, the latest event and one per detail.
        expect(reads.read()).toBeLessThanOrEqual(6);
      }),
      { numRuns: 15 },
    );
  });

  it('says what summarize says for a customer with few payments', async () => {
    await fc.assert(
      fc.asyncProperty(
        transactionRecords({ minLength: 1, maxLength: SUMMARIZE_READING_UP_TO }),
        async (drawn) => {
          const { customerId, records } = newCustomer(drawn);
          for (const r of records) await customers.saveTransaction(transactionDoc(customerId, r));
          expect(await customers.summaryOf(customerId)).toEqual(summarize(records));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('completes the payments written before their facts were kept, once, a batch at a time', async () => {
    const history = transactionRecords({ minLength: FACTS_BATCH + 20, maxLength: FACTS_BATCH + 20 });
    const { customerId, records } = newCustomer(fc.sample(history, { numRuns: 1, seed: 7 })[0]);
    for (const r of records) {
      const { netSpent: _n, settledAt: _s, knownAt: _k, ...older } = transactionDoc(customerId, r);
      await customers.saveTransaction(older);
    }
    reads.reset();
    expect(await customers.summaryOf(customerId)).toEqual(summarize(records));
    expect(reads.read()).toBeGreaterThanOrEqual(records.length);
    expect(reads.largest()).toBe(FACTS_BATCH);
    reads.reset();
    expect(await customers.summaryOf(customerId)).toEqual(summarize(records));
    expect(reads.read()).toBeLessThanOrEqual(6);
    // Finding the records still without facts reads none of the others.
    const held = store.collection('customer_transactions');
    expect(await held.docsExamined({ customerId, netSpent: null })).toBe(0);
  });

  it('follows a payment to its greatest version', async () => {
    const { customerId, records } = newCustomer(fc.sample(manyRecords, { numRuns: 1, seed: 11 })[0]);
    for (const r of records) await customers.saveTransaction(transactionDoc(customerId, r));
    const refunded: PaymentSnapshot = { ...records[0]!.payment, status: 'REFUNDED', refundedAmount: 100 };
    const later = { payment: refunded, occurredAt: '2025-01-02T00:00:00.000Z' };
    expect(await customers.saveTransaction(transactionDoc(customerId, later))).toBe('applied');
    expect(await customers.summaryOf(customerId)).toEqual(summarize([later, ...records.slice(1)]));
  });

  it('is null for a customer without payments', async () => {
    expect(await customers.summaryOf(newCustomer().customerId)).toBeNull();
  });
});
