import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SERVICE_NAMES,
  customersApi,
  newEvent,
  paymentEvents,
  paymentsApi,
  paymentsForCheckout,
  peerNotice,
  pingOperation,
  serviceNotice,
  type ServiceName,
} from '@mmp/protocol';
import {
  connectNats,
  createEventPublisher,
  createLogger,
  natsPermissions,
  startService,
} from '../src/index.js';
import { createBusClient } from '../src/rpc.js';
import { BaseEnv } from '../src/config.js';
import { createNaming } from '../src/nats.js';
import {
  eventually,
  natsServerInstalled,
  samplePaymentSnapshot,
  startNatsServer,
  type PrivateNatsServer,
} from '../src/testing/index.js';

/**
 * The permissions generated from the contracts, on a real NATS server of the test's own:
 * each service connects as its own user, what its contracts let it do works, and anything
 * else (a forged merchant request from a service that is not the gateway, another
 * service's events, another service's inbox) is refused by the server.
 */
const log = createLogger({ service: 'nats-permissions-test', level: 'silent' });
const runs = natsServerInstalled || process.env.CI === 'true';
if (!runs) console.warn('nats-permissions: skipped, nats-server is not installed');
const prefix = 'perm';
const naming = createNaming(prefix);
const password = (service: string) => `pw-${service}-0123456789`;
let server: PrivateNatsServer | undefined;
let dir = '';
let url = '';

beforeAll(async () => {
  if (!runs) return;
  dir = mkdtempSync(join(tmpdir(), 'mmp-nats-perm-'));
  server = await startNatsServer({
    authorization: {
      users: SERVICE_NAMES.map((service) => ({
        user: service,
        password: password(service),
        permissions: natsPermissions(service, { prefix }),
      })),
    },
  });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const connectAs = (service: ServiceName) =>
  connectNats({ url, name: service, log, auth: { user: service, password: password(service) } });

const serviceEnv = (service: ServiceName) => ({
  NATS_URL: url,
  NATS_PREFIX: prefix,
  NATS_USER: service,
  NATS_PASSWORD: password(service),
  DATA_DIR: join(dir, 'data'),
  OPS_PORT: '0',
  LOG_LEVEL: 'silent',
  SHUTDOWN_DELAY_MS: '0',
});

describe.skipIf(!runs)('NATS permissions from the contracts', () => {
  it('let a service do everything its contracts name: start, consume, serve', async () => {
    const projected: string[] = [];
    const customers = await startService(
      {
        name: 'customers',
        env: BaseEnv,
        async setup(kit) {
          kit.consume({
            durable: 'perm-customers',
            events: [paymentEvents.created],
            handle: async (event) => void projected.push(event.id),
          });
        },
      },
      serviceEnv('customers'),
    );
    const gateway = await connectAs('gateway');
    const payments = await connectAs('payments');
    try {
      const bus = createBusClient({ nc: gateway, naming, caller: 'gateway', defaultTimeoutMs: 2000, log });
      expect(await bus.request(pingOperation('customers'), {})).toMatchObject({ status: 'ok' });
      const publish = createEventPublisher(payments, naming, {
        service: 'payments',
        types: new Set(['payment.created']),
      });
      const payment = samplePaymentSnapshot();
      const event = newEvent(paymentEvents.created, { payment }, { occurredAt: payment.createdAt });
      await publish(event);
      await eventually(async () => projected.includes(event.id), 10_000);
    } finally {
      await customers.stop();
      await gateway.close();
      await payments.close();
    }
  }, 30_000);

  it('refuse a merchant request from any service but the gateway, whatever actor it claims', async () => {
    const links = await connectAs('links-checkout');
    try {
      // links-checkout may call payments' internal operations, never the merchant API.
      expect(natsPermissions('links-checkout', { prefix }).publish.allow).toContain(
        naming.subject(paymentsForCheckout.initiate.subject),
      );
      const errors: string[] = [];
      void (async () => {
        for await (const status of links.status())
          if (status.type === 'error') errors.push(String(status.error));
      })();
      links.publish(naming.subject(paymentsApi.list.subject), '{}');
      links.publish(naming.subject(customersApi.list.subject), '{}');
      await links.flush();
      await eventually(async () => errors.length >= 2, 5000);
      expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "perm\.svc\.payments\.list"/);
    } finally {
      await links.close();
    }
  });

  it('refuse publishing another service’s events and reading another service’s inbox', async () => {
    const customers = await connectAs('customers');
    try {
      const errors: string[] = [];
      void (async () => {
        for await (const status of customers.status())
          if (status.type === 'error') errors.push(String(status.error));
      })();
      customers.publish(naming.subject(paymentEvents.completed.subject), '{}');
      customers.subscribe('_INBOX_gateway.>');
      await customers.flush();
      await eventually(async () => errors.length >= 2, 5000);
      expect(errors.join('\n')).toMatch(/Publish to "perm\.evt\.payment\.completed"/);
      expect(errors.join('\n')).toMatch(/Subscription to "_INBOX_gateway\.>"/);
    } finally {
      await customers.close();
    }
  });

  it('let a service tell its own replicas, and no other service speak on their channel', async () => {
    const teller = await connectAs('gateway');
    const replica = await connectAs('gateway');
    const customers = await connectAs('customers');
    try {
      const heard: string[] = [];
      replica.subscribe('perm.svc.gateway.peers.credentials-changed', {
        callback: (_, msg) => void heard.push(msg.string()),
      });
      await replica.flush();
      const errors: string[] = [];
      void (async () => {
        for await (const status of customers.status())
          if (status.type === 'error') errors.push(String(status.error));
      })();
      customers.publish('perm.svc.gateway.peers.credentials-changed', 'forged');
      await customers.flush();
      teller.publish('perm.svc.gateway.peers.credentials-changed', 'changed');
      await teller.flush();
      await eventually(async () => heard.length === 1 && errors.length === 1, 5000);
      expect(heard).toEqual(['changed']);
      expect(errors[0]).toMatch(/Publish to "perm\.svc\.gateway\.peers\.credentials-changed"/);
    } finally {
      await Promise.all([teller.close(), replica.close(), customers.close()]);
    }
  });

  it('let payments tell the gateway a payment changed, and no other service hear or forge it', async () => {
    const payments = await connectAs('payments');
    const gateway = await connectAs('gateway');
    const customers = await connectAs('customers');
    const subject = 'perm.notice.payments.payment-changed';
    try {
      const heard: string[] = [];
      gateway.subscribe(subject, { callback: (_, msg) => void heard.push(msg.string()) });
      await gateway.flush();
      const errors: string[] = [];
      void (async () => {
        for await (const status of customers.status())
          if (status.type === 'error') errors.push(String(status.error));
      })();
      customers.subscribe(subject);
      customers.publish(subject, 'pay_forged');
      await customers.flush();
      payments.publish(subject, 'pay_1');
      await payments.flush();
      await eventually(async () => heard.length === 1 && errors.length === 2, 5000);
      expect(heard).toEqual(['pay_1']);
      expect(errors.join('\n')).toMatch(/Subscription to "perm\.notice\.payments\.payment-changed"/);
      expect(errors.join('\n')).toMatch(/Publish to "perm\.notice\.payments\.payment-changed"/);
    } finally {
      await Promise.all([payments.close(), gateway.close(), customers.close()]);
    }
  });

  it('are exactly the subjects of the contracts, and nothing broader than the service needs', () => {
    const gateway = natsPermissions('gateway', { prefix });
    expect(gateway.publish.allow).toContain('perm.svc.payments.create');
    expect(
      gateway.publish.allow.some((subject) => subject.startsWith('perm.svc.') && subject.endsWith('>')),
    ).toBe(false);
    expect(gateway.publish.allow).toContain('perm.svc.gateway.peers.credentials-changed');
    expect(
      natsPermissions('customers', { prefix }).publish.allow.filter((s) => s.startsWith('perm.')),
    ).toEqual([]);
    expect(z.array(z.string()).parse(natsPermissions('payments').subscribe.allow)).toContain(
      'svc.payments.>',
    );
    const shared = serviceNotice('payments', 'shared', ['payments', 'gateway'], 'A notice of the tests');
    const replicas = peerNotice('payments', 'own', 'A notice of the tests');
    const heardBy = (service: 'payments' | 'gateway' | 'customers') =>
      natsPermissions(service, { prefix, notices: [shared, replicas] }).subscribe.allow;
    expect(heardBy('payments')).toContain('perm.notice.payments.shared');
    expect(heardBy('payments')).not.toContain('perm.svc.payments.peers.own');
    expect(heardBy('gateway')).toContain('perm.notice.payments.shared');
    expect(heardBy('customers')).not.toContain('perm.notice.payments.shared');
  });
});
