import { openStore, type Doc, type Store } from '@mmp/platform';

/**
 * Seeds a data folder through the store port, not the API: one real payment, its checkout
 * session, its customer and the customer's transaction are read back from the stores as
 * the services wrote them (the templates), and cloned with fresh identifiers and
 * timestamps. The clones have the services' exact document shapes without this code
 * knowing them, and loading a million takes minutes instead of hours.
 */

/** Each service's collections, as named by its own store module. */
const COLLECTIONS = {
  payments: { service: 'payments', collection: 'payments' },
  sessions: { service: 'links-checkout', collection: 'checkout_sessions' },
  customers: { service: 'customers', collection: 'customers' },
  transactions: { service: 'customers', collection: 'customer_transactions' },
} as const;
type Kind = keyof typeof COLLECTIONS;

/** Writes awaited together while seeding. */
const IN_FLIGHT = 1_000;

/** Payments per customer: shoppers come back. */
export const PAYMENTS_PER_CUSTOMER = 4;

export type Templates = Record<Kind, Doc> & {
  /** The identifiers inside the templates that each clone replaces. */
  ids: {
    paymentId: string;
    token: string;
    sessionId: string;
    customerId: string;
    externalId: string;
    reference: string;
  };
};

async function withStores<T>(
  dataDir: string,
  work: (stores: Record<string, Store>) => Promise<T>,
): Promise<T> {
  const stores: Record<string, Store> = {};
  try {
    for (const service of new Set(Object.values(COLLECTIONS).map((c) => c.service)))
      stores[service] = await openStore({ dataDir, service });
    return await work(stores);
  } finally {
    await Promise.all(Object.values(stores).map((store) => store.close()));
  }
}

const collectionOf = (stores: Record<string, Store>, kind: Kind) =>
  (stores[COLLECTIONS[kind].service] as Store).collection<Doc>(COLLECTIONS[kind].collection);

/** Reads the four documents the template flow left (the services are stopped). */
export async function readTemplates(dataDir: string, reference: string): Promise<Templates> {
  return withStores(dataDir, async (stores) => {
    const payment = await collectionOf(stores, 'payments').findOne({ reference });
    if (!payment) throw new Error(`template payment ${reference} not found`);
    const sessionId = payment.checkoutSessionId as string;
    const session = await collectionOf(stores, 'sessions').findOne({ _id: sessionId });
    const transaction = await collectionOf(stores, 'transactions').findOne({
      'payment.id': payment.id as string,
    });
    if (!session || !transaction) throw new Error('template session or customer transaction not found');
    const customer = await collectionOf(stores, 'customers').findOne({
      _id: transaction.customerId as string,
    });
    if (!customer) throw new Error('template customer not found');
    return {
      payments: payment,
      sessions: session,
      customers: customer,
      transactions: transaction,
      ids: {
        paymentId: payment.id as string,
        token: payment.token as string,
        sessionId,
        customerId: customer._id,
        externalId: customer.externalId as string,
        reference,
      },
    };
  });
}

/** Same length and alphabet as `template`, ending with the number `n`: ids keep their format. */
function numbered(template: string, n: number, salt: string): string {
  const digits = `${salt}${n.toString(16)}`;
  return template.slice(0, template.length - digits.length) + digits;
}

/** Deep copy of `doc` with every template identifier (even inside URLs and keys) replaced. */
function clone(doc: unknown, replace: [string, string][]): unknown {
  if (typeof doc === 'string') return replace.reduce((text, [from, to]) => text.split(from).join(to), doc);
  if (Array.isArray(doc)) return doc.map((item) => clone(item, replace));
  if (doc instanceof Date || doc === null || typeof doc !== 'object') return doc;
  return Object.fromEntries(Object.entries(doc).map(([key, value]) => [key, clone(value, replace)]));
}

/** The id of seeded payment `n` (0 is the newest): a cursor into the middle of the list. */
export function seededPaymentId(templates: Templates, n: number, salt: string): string {
  return numbered(templates.ids.paymentId, n, salt);
}

/** Payment `n` and what belongs to it; every fourth one brings a new customer. */
function documentsOf(templates: Templates, n: number, salt: string, createdAt: string) {
  const { ids } = templates;
  const customer = Math.floor(n / PAYMENTS_PER_CUSTOMER);
  const replace: [string, string][] = [
    [ids.paymentId, seededPaymentId(templates, n, salt)],
    [ids.token, numbered(ids.token, n, salt)],
    [ids.sessionId, numbered(ids.sessionId, n, salt)],
    [ids.customerId, numbered(ids.customerId, customer, salt)],
    [ids.externalId, `${ids.externalId}-${customer}`],
    [ids.reference, `order-${salt}-${n}`],
  ];
  const stamp = (doc: Doc): Doc => {
    const copy = { ...(clone(doc, replace) as Doc), createdAt, updatedAt: createdAt };
    // A document keyed by an id of its own (not one of the template's) gets a fresh one.
    if (copy._id === doc._id) copy._id = numbered(doc._id, n, salt);
    return copy;
  };
  const payment = stamp(templates.payments);
  payment.payerName = `Shopper ${customer}`;
  payment.payerPhone = `+2376900${String(customer % 100_000).padStart(5, '0')}`;
  return {
    payments: payment,
    sessions: stamp(templates.sessions),
    transactions: { ...stamp(templates.transactions), occurredAt: createdAt },
    customers: n % PAYMENTS_PER_CUSTOMER === 0 ? stamp(templates.customers) : undefined,
  };
}

/**
 * Adds payments `from` to `to - 1` (with sessions, transactions and customers), one minute
 * apart going back from `newest`, so the newest page stays the template flow's. Returns
 * the documents written per second.
 */
export async function seed(
  dataDir: string,
  templates: Templates,
  from: number,
  to: number,
  salt: string,
  progress: (done: number) => void,
): Promise<number> {
  return withStores(dataDir, async (stores) => {
    const started = performance.now();
    let written = 0;
    const newest = Date.parse(templates.payments.createdAt as string);
    // Many writes in flight at once, as under real load: the store commits them in groups.
    let inFlight: Promise<void>[] = [];
    for (let n = from; n < to; n += 1) {
      const createdAt = new Date(newest - (n + 1) * 60_000).toISOString();
      const docs = documentsOf(templates, n, salt, createdAt);
      for (const kind of Object.keys(COLLECTIONS) as Kind[]) {
        const doc = docs[kind];
        if (!doc) continue;
        inFlight.push(collectionOf(stores, kind).insertOne(doc));
        written += 1;
      }
      if (inFlight.length >= IN_FLIGHT) {
        await Promise.all(inFlight);
        inFlight = [];
      }
      if ((n + 1) % 50_000 === 0) progress(n + 1);
    }
    await Promise.all(inFlight);
    return Math.round(written / ((performance.now() - started) / 1000));
  });
}
