import { DuplicateKeyError, type Doc, type Filter, type Sort, type Store } from '@mmp/platform';
import type { PaymentSnapshot } from '@mmp/protocol';
import {
  CONTACT_FIELDS,
  CONTACTS,
  recordFacts,
  summarize,
  type ContactField,
  type DerivedProfile,
  type ProfileSummary,
  type RecordFacts,
} from '../domain/profile.js';
import { TOP_CUSTOMERS, type StatsFigures } from '../domain/stats.js';
import type { Customer } from '../domain/views.js';

/**
 * One payment of a customer: its greatest known snapshot, the event it came from, and the
 * facts the customer's profile is summed and sorted from (absent on records written before
 * they were kept, which `summaryOf` completes).
 */
export type TransactionDoc = Doc &
  Partial<RecordFacts> & {
    customerId: string;
    projectId: string;
    livemode: boolean;
    payment: PaymentSnapshot;
    /** `paymentVersion` of the event the snapshot came from; only a greater one replaces it. */
    version: string;
    eventId: string;
    occurredAt: string;
    /** Copy of payment.createdAt, the history's sort key. */
    createdAt: string;
  };

export type CustomerDoc = Doc &
  Omit<Customer, 'id'> & {
    /** Lower-cased name for sorting; nameless customers sort after every name. */
    nameKey: string;
    /** lastTransactionAt or '' (no completed payment yet): sorts alike in both adapters. */
    lastTransactionKey: string;
    /** Counts the profile's writes; each write is guarded on the count it read. */
    seq: number;
  };

export const NAMELESS = '\uffff';

/**
 * Up to this many payments, a customer's profile is summarized from its records read
 * whole, in one query; beyond, by the store (`summaryOf`). Both cost about 0.25 ms of CPU
 * for 16 records on the embedded store; each record more costs reading whole about 10 µs,
 * the store's summary under 1 µs.
 */
export const SUMMARIZE_READING_UP_TO = 16;

/** How many records without their facts `summaryOf` reads at a time to complete them. */
export const FACTS_BATCH = 256;

export function createCustomerStore(store: Store) {
  const customers = store.collection<CustomerDoc>('customers');
  const transactions = store.collection<TransactionDoc>('customer_transactions');

  const toCustomer = ({
    _id,
    nameKey: _n,
    lastTransactionKey: _l,
    seq: _s,
    ...rest
  }: CustomerDoc): Customer => ({ id: _id, ...rest });
  const profileFields = (profile: DerivedProfile) => ({
    ...profile,
    nameKey: profile.name?.toLowerCase() ?? NAMELESS,
    lastTransactionKey: profile.lastTransactionAt ?? '',
  });

  /**
   * Gives the records of `filter` written before their facts were kept (no `netSpent`) their
   * facts, a batch at a time so that a customer with a long history is not read whole. A
   * record that changed meanwhile carries its facts already, unless an older version wrote
   * it, and then the next batch reads it again.
   */
  async function completeFacts(filter: Filter): Promise<void> {
    for (;;) {
      const older = await transactions.find({ ...filter, netSpent: null }, { limit: FACTS_BATCH });
      for (const doc of older)
        await transactions.findOneAndUpdate(
          { _id: doc._id, version: doc.version },
          { $set: recordFacts(doc) },
        );
      if (older.length < FACTS_BATCH) return;
    }
  }

  return {
    async ensureIndexes() {
      await customers.ensureIndex({ fields: { projectId: 1, livemode: 1, externalId: 1 }, unique: true });
      // Every order the list offers ends with the id, as the list's sort does, and so does
      // the statistics' top: an order read from an index only up to a tie sorted every tied
      // customer on each request (a single-price shop ties them all: 2.5 s for 250,000).
      // Counts, the sum and the top read these too, rather than every customer.
      await customers.dropIndex({ fields: { projectId: 1, livemode: 1, lastTransactionKey: -1 } });
      for (const order of ['lastTransactionKey', 'createdAt', 'totalSpent', 'totalTransactions'])
        await customers.ensureIndex({ fields: { projectId: 1, livemode: 1, [order]: -1, _id: -1 } });
      await customers.ensureIndex({ fields: { projectId: 1, livemode: 1, nameKey: 1, _id: 1 } });
      await customers.ensureIndex({
        fields: { projectId: 1, livemode: 1, totalSpent: -1, totalTransactions: -1, _id: 1 },
      });
      // The list's search box: a substring of any of these (see the list handler).
      await customers.ensureIndex({ fields: { phone: 1, email: 1, name: 1 }, text: true });
      await transactions.ensureIndex({ fields: { customerId: 1, createdAt: -1 } });
      // What `summaryOf` reads of a customer with many payments; a record without its facts
      // has no netSpent, which is how `summaryOf` finds one.
      await transactions.ensureIndex({ fields: { customerId: 1, settledAt: -1 } });
      await transactions.ensureIndex({ fields: { customerId: 1, netSpent: -1 } });
      await transactions.ensureIndex({ fields: { customerId: 1, occurredAt: -1 } });
      for (const field of CONTACTS)
        await transactions.ensureIndex({ fields: { customerId: 1, [`knownAt.${field}`]: -1 } });
    },

    /**
     * Keeps the snapshot only if its version is greater than the one held: 'applied' when
     * it was, 'stale' when the record already holds this event or a later one.
     */
    async saveTransaction(doc: TransactionDoc): Promise<'applied' | 'stale'> {
      const { _id, ...fields } = doc;
      try {
        // One write whether the record is new or older; the guard failing on a record that
        // exists is the duplicate key.
        await transactions.findOneAndUpdate(
          { _id, version: { $lt: doc.version } },
          { $set: fields },
          { upsert: true },
        );
        return 'applied';
      } catch (error) {
        if (error instanceof DuplicateKeyError) return 'stale';
        throw error;
      }
    },

    /**
     * What the customer's profile is derived from, as `summarize` says it of all its records,
     * or null when it has none. A customer with many payments is summarized by the store: a
     * count and a sum over its index entries, which reads no document, and the first entry of
     * an index for each latest and earliest value, so that an event of a customer with 5,000
     * payments reads six records rather than all 5,000. Its records written before their
     * facts were kept (by an earlier version, or by one still running during a rollout) get
     * them first.
     */
    async summaryOf(customerId: string): Promise<ProfileSummary | null> {
      const of = { customerId };
      const held = await transactions.count(of, { limit: SUMMARIZE_READING_UP_TO + 1 });
      if (held <= SUMMARIZE_READING_UP_TO) return summarize(await transactions.find(of));
      await completeFacts(of);
      const settled = { ...of, settledAt: { $gt: '' } };
      const first = async (filter: Filter, sort: Sort) =>
        (await transactions.find(filter, { sort, limit: 1 }))[0];
      const [settledCount, spent, lastSettled, firstCreated, lastOccurred, ...newest] = await Promise.all([
        transactions.count(settled),
        transactions.sum(of, 'netSpent'),
        first(settled, { settledAt: -1 }),
        first(of, { createdAt: 1 }),
        first(of, { occurredAt: -1 }),
        ...CONTACTS.map((field) =>
          first({ ...of, [`knownAt.${field}`]: { $gt: '' } }, { [`knownAt.${field}`]: -1 }),
        ),
      ]);
      // Another replica's rebuild may have wiped the records since the count.
      if (!firstCreated || !lastOccurred) return null;
      const contacts = Object.fromEntries(
        CONTACTS.map((field, index) => [field, newest[index]?.payment[CONTACT_FIELDS[field]] ?? null]),
      ) as Record<ContactField, string | null>;
      return {
        settledCount,
        spent,
        lastSettledAt: lastSettled?.settledAt ?? null,
        firstCreatedAt: firstCreated.createdAt,
        lastOccurredAt: lastOccurred.occurredAt,
        ...contacts,
      };
    },

    pageTransactions(customerId: string, skip: number, limit: number) {
      return transactions.find({ customerId }, { sort: { createdAt: -1, _id: -1 }, skip, limit });
    },

    countTransactions(customerId: string) {
      return transactions.count({ customerId });
    },

    /** The customer's change counter, or null before its first profile is written. */
    async changeCounterOf(id: string): Promise<number | null> {
      return (await customers.findOne({ _id: id }))?.seq ?? null;
    },

    /** Writes a new customer's first profile; false when another write created it first. */
    async insertCustomer(customer: Customer): Promise<boolean> {
      const { id, ...rest } = customer;
      try {
        await customers.insertOne({ _id: id, ...rest, ...profileFields(rest), seq: 1 });
        return true;
      } catch (error) {
        if (error instanceof DuplicateKeyError) return false;
        throw error;
      }
    },

    /**
     * Writes the profile and counts the change, if the counter is still `seq`: false when
     * another write came between (or a rebuild wiped the customer).
     */
    async writeProfile(id: string, seq: number, profile: DerivedProfile): Promise<boolean> {
      const written = await customers.findOneAndUpdate(
        { _id: id, seq },
        { $set: profileFields(profile), $inc: { seq: 1 } },
      );
      return written !== null;
    },

    async findCustomer(scope: { projectId: string; livemode: boolean }, idOrExternalId: string) {
      // Our id first: an external id that happens to equal another customer's id loses.
      const doc =
        (await customers.findOne({ ...scope, _id: idOrExternalId })) ??
        (await customers.findOne({ ...scope, externalId: idOrExternalId }));
      return doc ? toCustomer(doc) : null;
    },

    async listCustomers(filter: Filter, sort: Sort, skip: number, limit: number) {
      return (await customers.find(filter, { sort, skip, limit })).map(toCustomer);
    },

    /**
     * What a project's statistics are made of (domain/stats.ts), counted and summed where the
     * customers are kept: a request reads the top customers and no other. Reading them all
     * took 3 s and 400 MB of the service's memory for 250,000 customers.
     */
    async statsFigures(
      scope: { projectId: string; livemode: boolean },
      since: string,
    ): Promise<StatsFigures> {
      const [totalCustomers, newCustomers, activeCustomers, totalSpent, top] = await Promise.all([
        customers.count(scope),
        customers.count({ ...scope, createdAt: { $gte: since } }),
        // lastTransactionKey is '' until a completed payment, below any date.
        customers.count({ ...scope, lastTransactionKey: { $gte: since } }),
        customers.sum(scope, 'totalSpent'),
        customers.find(
          { ...scope, totalSpent: { $gt: 0 } },
          { sort: { totalSpent: -1, totalTransactions: -1, _id: 1 }, limit: TOP_CUSTOMERS },
        ),
      ]);
      return { totalCustomers, newCustomers, activeCustomers, totalSpent, top: top.map(toCustomer) };
    },

    countCustomers(filter: Filter) {
      return customers.count(filter);
    },

    async countAll() {
      return { customers: await customers.count({}), transactions: await transactions.count({}) };
    },

    /** Wipes the projection before a rebuild replays the stream into it. */
    async clear() {
      await transactions.deleteMany({});
      await customers.deleteMany({});
    },
  };
}
export type CustomerStore = ReturnType<typeof createCustomerStore>;
