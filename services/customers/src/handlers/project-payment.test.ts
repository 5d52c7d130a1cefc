import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@mmp/platform';
import type { PaymentEventData, PendingEvent } from '@mmp/protocol';
import { latestRecords, paymentLife, profileFrom, snapshot } from '../../test/fixtures.js';
import { openCustomerTestStore, type CustomerTestStore } from '../../test/store.js';
import { customerIdFor } from '../domain/profile.js';
import { SUMMARIZE_READING_UP_TO, type CustomerStore } from '../store/customers.js';
import { createPaymentProjector } from './project-payment.js';

/**
 * Replicas of the service project the same customers at once. Whatever the interleaving,
 * the profile written last must be the one all the customer's payments say.
 */

let opened: CustomerTestStore;
let customers: CustomerStore;

beforeAll(async () => {
  opened = await openCustomerTestStore('projector');
  ({ customers } = opened);
});

afterAll(() => opened.close());

/** A logger that keeps its debug lines' messages: a lost write says so at debug. */
function recordingLog(lines: string[]): Logger {
  const log = {
    debug: (_bindings: unknown, message: string) => lines.push(message),
    child: () => log,
  };
  return log as unknown as Logger;
}

function livesOf(customerId: string, count: number): PendingEvent[] {
  return Array.from({ length: count }, (_, i) =>
    paymentLife(
      snapshot({
        customerId,
        amount: 1_000 + i,
        createdAt: new Date(Date.UTC(2025, 0, 1, i)).toISOString(),
        payerName: i % 3 ? `Name ${i}` : null,
      }),
      i % 4 === 0 ? 'FAILED' : 'COMPLETED',
      i % 5 === 1 ? [300] : [],
    ),
  ).flat();
}

/** A fixed shuffle, so that a failure replays. */
function shuffled<T>(items: T[]): T[] {
  let seed = 7;
  const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
  return items
    .map((item) => ({ item, key: next() }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);
}

describe('projecting one customer from several replicas at once', () => {
  it('ends with the profile all its payments say, for a customer with few and one with many', async () => {
    const debug: string[] = [];
    const replicas = [1, 2, 3].map(() =>
      createPaymentProjector({ store: customers, log: recordingLog(debug) }),
    );
    const few = livesOf('cust-few', 5);
    const many = livesOf('cust-many', SUMMARIZE_READING_UP_TO * 2);
    // Each replica applies its events one at a time, as the service's consumer does.
    const events = shuffled([...few, ...many]) as (PendingEvent & { data: PaymentEventData })[];
    await Promise.all(
      replicas.map(async (replica, r) => {
        for (const event of events.filter((_, i) => i % replicas.length === r))
          await replica.apply(event, { mustRefresh: false });
      }),
    );
    // The replicas did race: some writes lost and derived again.
    expect(debug.filter((line) => line.includes('deriving again')).length).toBeGreaterThan(0);
    for (const [externalId, events] of [
      ['cust-few', few],
      ['cust-many', many],
    ] as const) {
      const { projectId, livemode } = snapshot();
      const stored = await customers.findCustomer(
        { projectId, livemode },
        customerIdFor(projectId, livemode, externalId),
      );
      expect(stored).toMatchObject({ externalId, ...profileFrom(latestRecords(events)) });
    }
  });

  it('derives again when its write loses to one that had not read its payment', async () => {
    const lines: string[] = [];
    const log = recordingLog(lines);
    const [first, a, b] = [0, 1, 2].map((i) =>
      paymentLife(snapshot({ customerId: 'cust-race', amount: 1_000 * (i + 1) }), 'COMPLETED'),
    ) as [PendingEvent[], PendingEvent[], PendingEvent[]];
    const project = (projector: ReturnType<typeof createPaymentProjector>, events: PendingEvent[]) =>
      Promise.all(
        events.map((event) =>
          projector.apply(event as PendingEvent & { data: PaymentEventData }, { mustRefresh: false }),
        ),
      );
    await project(createPaymentProjector({ store: customers, log }), first);

    // A derives without B's payment and B with A's; A writes first, then B.
    const held = (reached: Deferred, release: Deferred): CustomerStore => ({
      ...customers,
      async writeProfile(...args) {
        reached.resolve();
        await release.promise;
        return customers.writeProfile(...args);
      },
    });
    const [aReached, aRelease, bReached, bRelease] = [deferred(), deferred(), deferred(), deferred()];
    const projectorA = createPaymentProjector({ store: held(aReached, aRelease), log });
    const projectorB = createPaymentProjector({ store: held(bReached, bRelease), log });
    const completedA = a.at(-1) as PendingEvent & { data: PaymentEventData };
    const completedB = b.at(-1) as PendingEvent & { data: PaymentEventData };
    const doneA = projectorA.apply(completedA, { mustRefresh: false });
    await aReached.promise;
    const doneB = projectorB.apply(completedB, { mustRefresh: false });
    await bReached.promise;
    aRelease.resolve();
    await doneA;
    bRelease.resolve();
    await doneB;

    expect(lines).toContain('another change of the customer came first; deriving again');
    const { projectId, livemode } = snapshot();
    const stored = await customers.findCustomer(
      { projectId, livemode },
      customerIdFor(projectId, livemode, 'cust-race'),
    );
    expect(stored).toMatchObject({ totalTransactions: 3, totalSpent: 6_000 });
  });

  it('gives up after a bounded number of lost writes, so that the event is delivered again', async () => {
    const lines: string[] = [];
    let derivations = 0;
    const alwaysLosing: CustomerStore = {
      ...customers,
      summaryOf: (id) => {
        derivations += 1;
        return customers.summaryOf(id);
      },
      writeProfile: async () => false,
      insertCustomer: async () => false,
    };
    const projector = createPaymentProjector({ store: alwaysLosing, log: recordingLog(lines) });
    const [completed] = paymentLife(snapshot({ customerId: 'cust-contended' }), 'COMPLETED').slice(-1);
    await expect(
      projector.apply(completed as PendingEvent & { data: PaymentEventData }, { mustRefresh: false }),
    ).rejects.toThrow('profile writes in a row lost to others');
    expect(derivations).toBe(20);
    expect(lines).toHaveLength(20);
  });
});

type Deferred = { promise: Promise<void>; resolve: () => void };

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
