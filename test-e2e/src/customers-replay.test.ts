import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, createLogger, type Naming, type NatsConnection } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import {
  EVENTS_STREAM,
  eventSubject,
  type CustomerList,
  type CustomerStats,
  type CustomerTransactions,
} from '@mmp/protocol';
import { useShop } from './support/shop.js';
import { createPayment } from './support/http.js';
import { payOnHostedPage } from './support/shopper.js';

const shop = useShop('Replay Shop');
const { merchant } = shop;
let nc: NatsConnection;
let stream: ReturnType<typeof eventsStream>;

type StoredEvent = { seq: number; subject: string; data: string };
type ConsumerInfo = { name: string; num_pending: number; num_ack_pending: number };
type JsReply = { error?: { code: number; description: string } };

/**
 * The test system's EVENTS stream, through the JetStream API on plain NATS requests: the
 * stored events in order, the durable consumers' progress, and publishing onto it.
 */
function eventsStream(connection: NatsConnection, naming: Naming) {
  const name = naming.stream(EVENTS_STREAM);
  async function jsApi<T>(operation: string, body: unknown = {}): Promise<T> {
    const reply = await connection.request(`$JS.API.${operation}`, JSON.stringify(body), { timeout: 5000 });
    const answer = reply.json<T & JsReply>();
    if (answer.error) throw new Error(`${operation}: ${answer.error.description}`);
    return answer;
  }
  const lastSeq = async () =>
    (await jsApi<{ state: { last_seq: number } }>(`STREAM.INFO.${name}`)).state.last_seq;
  return {
    lastSeq,
    async events(): Promise<StoredEvent[]> {
      const { state } = await jsApi<{ state: { first_seq: number; last_seq: number } }>(
        `STREAM.INFO.${name}`,
      );
      const events: StoredEvent[] = [];
      for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
        const { message } = await jsApi<{ message: StoredEvent }>(`STREAM.MSG.GET.${name}`, { seq });
        events.push({ ...message, data: Buffer.from(message.data, 'base64').toString('utf8') });
      }
      return events;
    },
    /**
     * Publishes the event's body again. Without a `Nats-Msg-Id` header, the stream's
     * de-duplication (which keys on that header, the event id) cannot drop it: consumers
     * get the same event, with the same id, a second time, as after a crash of the relay.
     */
    async republish(event: StoredEvent): Promise<number> {
      const ack = (await connection.request(event.subject, event.data, { timeout: 5000 })).json<
        { seq: number; duplicate?: boolean } & JsReply
      >();
      expect(ack.error).toBeUndefined();
      expect(ack.duplicate).toBeFalsy();
      return ack.seq;
    },
    /** Where a durable consumer stands: the last event it acknowledged in an unbroken run. */
    async ackFloor(durable: string): Promise<number> {
      const info = await jsApi<{ ack_floor: { stream_seq: number } }>(`CONSUMER.INFO.${name}.${durable}`);
      return info.ack_floor.stream_seq;
    },
    /** Every durable consumer of the stream has been given every event and acknowledged it. */
    async consumersCaughtUp(): Promise<string[] | false> {
      const { consumers } = await jsApi<{ consumers: ConsumerInfo[] }>(`CONSUMER.LIST.${name}`, {
        offset: 0,
      });
      const idle = consumers.every((c) => c.num_pending === 0 && c.num_ack_pending === 0);
      return idle && consumers.map((c) => c.name);
    },
  };
}

/** The customers projection's durable consumer, as the customers service names it. */
const projectionConsumer = () => shop.system.system.naming.consumer('customers');
const isPaymentEvent = (event: StoredEvent) =>
  event.subject.startsWith(shop.system.system.naming.subject(eventSubject('payment.')));

/** Waits until every consumer is idle and no service published anything in reaction. */
async function settle(): Promise<number> {
  return eventually(async () => {
    const seq = await stream.lastSeq();
    const caughtUp = await stream.consumersCaughtUp();
    return caughtUp && caughtUp.includes(projectionConsumer()) && seq === (await stream.lastSeq()) && seq;
  }, 20_000);
}

/** A real payment through the public API, paid with a sandbox number and waited for. */
async function pay(customerId: string, amount: number, phone: string | null, customer = {}) {
  const created = await createPayment(merchant, { amount, description: 'Order', customerId, customer });
  const { token } = created;
  if (phone === null) {
    expect((await merchant('POST', `/v1/payments/${token}/cancel`)).status).toBe(200);
  } else {
    await payOnHostedPage(shop.system.baseUrl, created, phone);
  }
  await eventually(async () => {
    const { status } = (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body;
    return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(status);
  }, 30_000);
}

/** Everything a merchant can read about its customers. */
async function customersAsSeen() {
  const base = `/v1/projects/${shop.project.id}/customers`;
  const list = await merchant<CustomerList>('GET', `${base}?per_page=100&sort_by=name&sort_order=asc`);
  const stats = await merchant<CustomerStats>('GET', `${base}/stats`);
  const histories: Record<string, CustomerTransactions> = {};
  for (const customer of list.body.data) {
    const history = await merchant<CustomerTransactions>(
      'GET',
      `${base}/${customer.id}/transactions?per_page=100`,
    );
    expect(history.status).toBe(200);
    histories[customer.externalId!] = history.body;
  }
  return { customers: list.body, stats: stats.body, histories };
}

let before: Awaited<ReturnType<typeof customersAsSeen>>;

beforeAll(async () => {
  nc = await connectNats({
    url: shop.system.system.env.NATS_URL!,
    name: 'customers-replay',
    log: createLogger({ service: 'test', level: 'silent' }),
  });
  stream = eventsStream(nc, shop.system.system.naming);
  const awa = { email: 'awa@example.cm', name: 'Awa Ndiaye', phone: '+237690000001' };
  await pay('cust-awa', 5000, '+237690000001', awa);
  await pay('cust-paul', 10000, '+237670000001', { email: 'paul@example.cm', name: 'Paul Biya' });
  await pay('cust-awa', 2500, '+237690000001', awa);
  await pay('cust-paul', 7000, '+237690000002', { email: 'paul@example.cm', name: 'Paul Biya' });
  await pay('cust-ines', 3000, null, { name: 'Ines Fotso' });
  await settle();
  before = await customersAsSeen();
  expect(before.customers.data.map((c) => [c.externalId, c.totalTransactions, c.totalSpent])).toEqual([
    ['cust-awa', 2, 7500],
    ['cust-ines', 0, 0],
    ['cust-paul', 1, 10000],
  ]);
  expect(before.stats).toMatchObject({ totalCustomers: 3, activeCustomersLast30Days: 2, totalSpent: 17500 });
  expect(Object.values(before.histories).map((h) => h.meta.total)).toEqual([2, 1, 2]);
}, 120_000);

afterAll(async () => {
  await nc?.drain();
});

describe('customer profiles under a replayed event stream', () => {
  it('stay exactly the same when every event is delivered twice more, in order and in reverse', async () => {
    const original = await stream.events();
    expect(original.filter(isPaymentEvent).length).toBeGreaterThanOrEqual(10);
    for (const replay of [original, [...original].reverse()]) {
      const republished: number[] = [];
      for (const event of replay) republished.push(await stream.republish(event));
      const lastPaymentEvent = Math.max(...republished.filter((_, i) => isPaymentEvent(replay[i]!)));
      // Nothing new comes out of it: no service reacts to an event it already handled.
      expect(await settle()).toBe(Math.max(...republished));
      // The server may move a filtered consumer's ack floor over later events it does not
      // match, so the floor is at the last payment event or past it, never before.
      expect(await stream.ackFloor(projectionConsumer())).toBeGreaterThanOrEqual(lastPaymentEvent);
      expect(await customersAsSeen()).toEqual(before);
    }
  });

  it('are identical after a rebuild from the stream: profiles, statistics and histories', async () => {
    const rebuilt = await shop.system.admin<{ events: number; customers: number; transactions: number }>(
      'POST',
      '/v1/admin/customers/rebuild',
    );
    const paymentEvents = (await stream.events()).filter(isPaymentEvent);
    expect(rebuilt).toMatchObject({ events: paymentEvents.length, customers: 3, transactions: 5 });
    expect(await customersAsSeen()).toEqual(before);
  });
});
