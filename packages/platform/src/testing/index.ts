import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM, newPaymentToken, type PaymentExecute, type PaymentSnapshot } from '@mmp/protocol';
import { createNaming, type Naming } from '../nats.js';
import { eventually } from './eventually.js';

export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * An isolated system for one test file: its own NATS prefix (subjects, stream and
 * consumers) and its own data folder. `cleanup()` deletes both.
 */
export function createTestSystem(label = 't') {
  const prefix = `${label.replace(/[^a-z0-9]/g, '')}_${randomBytes(5).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), `mmp-${label}-`));
  const env: Record<string, string> = {
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    DATA_DIR: dataDir,
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SERVICE_SECRET_KEY: 'test-server-key-0123456789abcdef0123456789',
    // Empty is unset: a MONGO_URL of the environment (CI's, for the MongoDB store suite) does
    // not reach services started with `{...process.env, ...system.env}`. Tests that run on
    // MongoDB say so (test-e2e: E2E_STORE=mongodb).
    MONGO_URL: '',
    // No ingress in front of a test: a SIGTERM'd service stops at once.
    SHUTDOWN_DELAY_MS: '0',
  };
  return {
    prefix,
    dataDir,
    env,
    naming: createNaming(prefix),
    async cleanup() {
      const nc = await connect({ servers: TEST_NATS_URL });
      try {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.delete(createNaming(prefix).stream(EVENTS_STREAM)).catch(() => undefined);
      } finally {
        await nc.close();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type TestSystem = ReturnType<typeof createTestSystem>;

/**
 * Resolves once the durable consumer `durable` has acked everything published so far (each
 * of its durables, where it has one per aggregate: see durableLayout). With `orAbsent`, a
 * consumer that does not exist (its service not started yet) counts as done.
 */
export async function consumed(
  nc: NatsConnection,
  naming: Naming,
  durable: string,
  options: { orAbsent?: boolean } = {},
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = naming.consumer(durable);
  await eventually(async () => {
    const durables = [];
    for await (const info of jsm.consumers.list(naming.stream(EVENTS_STREAM)))
      if (info.name === name || info.name.startsWith(`${name}-on-`)) durables.push(info);
    if (durables.length === 0) return options.orAbsent === true;
    return durables.every((info) => info.num_pending === 0 && info.num_ack_pending === 0);
  });
}

/**
 * A payment as payments publishes it in its events (`PaymentSnapshot`), with neutral
 * values: a PENDING 5000 XAF sandbox payment. Tests override what they are about.
 */
export function samplePaymentSnapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  const id = randomUUID();
  return {
    id,
    token: newPaymentToken(),
    projectId: '00000000-0000-4000-8000-000000000001',
    livemode: false,
    reference: null,
    amount: 5000,
    currency: 'XAF',
    status: 'PENDING',
    paymentMethod: 'UNKNOWN',
    payerPhone: null,
    payerName: null,
    payerEmail: null,
    description: null,
    userId: null,
    customerId: null,
    metadata: {},
    checkoutSessionId: null,
    failureCode: null,
    failureReason: null,
    refundedAmount: 0,
    createdAt: new Date().toISOString(),
    completedAt: null,
    paymentUrl: null,
    returnUrl: null,
    cancelUrl: null,
    expiresAt: null,
    ...overrides,
  };
}
/**
 * The payment.execute order provider-router hands a rail for order `orderKey`: 5000 XAF
 * on Orange Money in Cameroon, paid by `msisdn`.
 */
export function samplePaymentExecute(orderKey: string, msisdn = '+237690000001'): PaymentExecute {
  return {
    protocol_version: '1',
    type: 'payment.execute',
    idempotency_key: orderKey,
    amount: '5000',
    currency: 'XAF',
    network: 'ORANGE_MONEY',
    country: 'CM',
    payee: { msisdn },
    transaction_ref: `pay_${orderKey.slice(6)}`,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

/**
 * The fields of the specification's Payment tables, written out here rather than read from
 * the protocol's schemas, so that a schema losing or gaining a field fails the tests that
 * compare an answer with them.
 */
export const SPEC_PAYMENT_FIELDS = {
  /** `POST /payments` 201. */
  created: [
    'amount',
    'completedAt',
    'createdAt',
    'currency',
    'description',
    'id',
    'livemode',
    'paymentUrl',
    'projectId',
    'status',
    'token',
  ],
  /** The full payment: retrieve, verify, cancel and the user list (with why it failed, ours). */
  full: [
    'amount',
    'completedAt',
    'createdAt',
    'currency',
    'description',
    'failureCode',
    'failureMessage',
    'id',
    'livemode',
    'payerEmail',
    'payerName',
    'payerPhone',
    'paymentMethod',
    'paymentUrl',
    'projectId',
    'reference',
    'status',
    'token',
  ],
  /** An item of a payment list: the payments list and a customer's transactions. */
  listItem: [
    'amount',
    'completedAt',
    'createdAt',
    'currency',
    'failureCode',
    'failureMessage',
    'id',
    'paymentMethod',
    'status',
    'token',
  ],
} as const;

export { createTestBus, serveStandIn } from './bus.js';
export { eventually } from './eventually.js';
export { makeTestCertificate } from './tls.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export { spawnServiceProcess, spawnTypeScript, type ChildService } from './child.js';
export { freePort } from './ports.js';
export { natsServerInstalled, startNatsServer, type PrivateNatsServer } from './nats-server.js';
export { captureLogs } from './logs.js';
export { metricSample } from './metrics.js';
export {
  answerOrders,
  failOrders,
  signedWith,
  startProviderEndpoint,
  type EndpointAnswer,
  type EndpointBehaviour,
  type ProviderEndpoint,
  type ReceivedCall,
} from './provider-endpoint.js';
