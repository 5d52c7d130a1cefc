import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ChildService, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { api } from '../support/http.js';
import {
  createLink,
  expectLinkRefusal,
  PAYS,
  startLink,
  type Call,
  type Link,
  type Session,
  type SessionStatus,
} from '../links-checkout-api/helpers.js';

/**
 * A link payment whose payments call never came back: payments is frozen (SIGSTOP) while a
 * session of a `maxUses: 1` link pays, links-checkout is killed with SIGKILL mid-attempt and
 * payments after it, so no payment exists and no payment event will ever come. Restarted,
 * links-checkout keeps the held use while payments is absent, and once the real payments
 * is back it learns no payment was made, gives the use back and returns the session to the form.
 */
const RECOVERY = { PAYMENT_RECOVERY_AFTER_MS: '1000', PAYMENT_RECOVERY_INTERVAL_MS: '200' };

let system: RunningSystem;
let payments: ChildService;
let checkout: ChildService;
let project: ProjectKeys;
let merchant: Call;
let shopper: Call;

beforeAll(async () => {
  system = await startSystem({ external: ['payments', 'links-checkout'] });
  payments = system.spawnService('payments');
  // It waits for the frozen payments far longer than the test takes to kill it.
  checkout = system.spawnService('links-checkout', { ...RECOVERY, REQUEST_TIMEOUT_MS: '60000' });
  await Promise.all([payments.waitReady(), checkout.waitReady()]);
  project = await system.createProject('Recovery Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
  shopper = api(system.baseUrl);
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

const pay = (session: Session) =>
  shopper<SessionStatus>('POST', `/v1/checkout/sessions/${session.id}/pay`, PAYS);
const statusOf = async (session: Session) =>
  (await shopper<SessionStatus>('GET', `/v1/checkout/sessions/${session.id}/status`)).body;

describe('links-checkout killed while payments never answered', () => {
  it('holds the use while payments is absent, then gives it back once and lets the link be paid', async () => {
    const link: Link = await createLink(merchant, { name: 'Recovery', amount: 1500, maxUses: 1 });
    const [a, b] = [await startLink(shopper, link), await startLink(shopper, link)];

    process.kill(payments.pid, 'SIGSTOP');
    const paying = pay(a);
    await eventually(async () => (await statusOf(a)).status === 'processing', 10_000);
    // The claim, the hold and the call to payments follow each other within milliseconds.
    await sleep(300);
    expect((await checkout.kill('SIGKILL')).signal).toBe('SIGKILL');
    expect((await payments.kill('SIGKILL')).signal).toBe('SIGKILL');
    expect((await paying).status).toBe(503);

    checkout = system.spawnService('links-checkout', RECOVERY);
    await checkout.waitReady();
    await sleep(1500);
    expect((await statusOf(a)).status).toBe('processing');
    expectLinkRefusal(await pay(b), 'link_exhausted');

    payments = system.spawnService('payments');
    await payments.waitReady();
    await eventually(async () => (await statusOf(a)).status === 'idle', 10_000);
    expect(await statusOf(a)).toMatchObject({ paymentStatus: null, failureCode: 'service_unavailable' });

    expect((await pay(b)).status).toBe(200);
    await eventually(async () => (await statusOf(b)).status === 'success', 20_000);
    await eventually(
      async () => (await merchant<Link>('GET', `/v1/payment-links/${link.id}`)).body.usageCount === 1,
    );
    expectLinkRefusal(await pay(a), 'link_exhausted');
  });
});
