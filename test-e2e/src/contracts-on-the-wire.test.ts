import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, createLogger, type NatsConnection } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { EVENT_CONTRACTS, OPERATION_CONTRACTS, NOTICES } from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import { payOnHostedPage, sessionOf } from './support/shopper.js';

/**
 * Every subject the running system uses on NATS is one a contract declares: this listens to
 * everything under the system's prefix while a payment goes its whole way (merchant,
 * payer, routing, delivery, settlement, webhooks, customers) and lists any subject no
 * contract names.
 */
let system: RunningSystem;
let project: ProjectKeys;
let nc: NatsConnection;
const seen = new Set<string>();

beforeAll(async () => {
  system = await startSystem();
  nc = await connectNats({
    url: system.system.env.NATS_URL!,
    name: 'e2e-wire',
    log: createLogger({ service: 'e2e-wire', level: 'silent' }),
  });
  const prefix = `${system.system.prefix}.`;
  nc.subscribe(`${prefix}>`, {
    callback: (_error, msg) => {
      seen.add(msg.subject.slice(prefix.length));
    },
  });
  await nc.flush();
  project = await system.createProject('Wire Shop');
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await system?.stop();
});

describe('the bus', () => {
  it('carries only subjects declared by a contract through a whole payment', async () => {
    const merchant = api(system.baseUrl, project.testSecretKey);
    await merchant('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'] });
    const created = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', {
      amount: 1500,
      customerId: 'wire-customer',
    });
    expect(created.status).toBe(201);
    await payOnHostedPage(system.baseUrl, created.body, '+237690000001');
    await eventually(async () => {
      const status = await api(system.baseUrl)<{ status: string }>(
        'GET',
        `/v1/checkout/sessions/${sessionOf(created.body)}/status`,
      );
      return status.body.status === 'success';
    }, 20_000);
    await merchant('GET', `/v1/payments/${created.body.token}/verify`);
    await merchant('GET', `/v1/projects/${project.id}/customers`);
    await fetch(`${system.baseUrl}/v1/health`);

    const declared = new Set(
      [...OPERATION_CONTRACTS, ...EVENT_CONTRACTS, ...NOTICES].map((contract) => contract.subject),
    );
    expect([...seen].filter((subject) => !declared.has(subject)).sort()).toEqual([]);
    // It did listen: the flow's own subjects went by.
    expect(seen).toContain('svc.payments.create');
    expect(seen).toContain('evt.payment.completed');
  }, 60_000);
});
