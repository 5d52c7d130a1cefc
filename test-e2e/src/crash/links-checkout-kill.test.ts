import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { startOwnProcess, type OwnProcess } from '../support/own-process.js';
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
 * payments after it, so no payment exists and no payment event will ever come. Nothing was
 * held for a payment that does not exist: restarted, links-checkout returns the session to
 * the form once its attempt is over, without asking anyone, and the link's one use goes to
 * whoever pays first once payments is back.
 */
const REQUEST_TIMEOUT_MS = '2000';

let system: RunningSystem;
let payments: OwnProcess;
let checkout: OwnProcess;
let project: ProjectKeys;
let merchant: Call;
let shopper: Call;

beforeAll(async () => {
  system = await startSystem({ external: ['payments', 'links-checkout'] });
  [payments, checkout] = await Promise.all([
    startOwnProcess(system, 'payments'),
    // It waits for the frozen payments longer than the test takes to kill it.
    startOwnProcess(system, 'links-checkout', { REQUEST_TIMEOUT_MS }),
  ]);
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
  it('returns the session to the form, holds nothing, and lets the link be paid once', async () => {
    const link: Link = await createLink(merchant, { name: 'Recovery', amount: 1500, maxUses: 1 });
    const [a, b] = [await startLink(shopper, link), await startLink(shopper, link)];

    process.kill(payments.pid, 'SIGSTOP');
    const paying = pay(a);
    await eventually(async () => (await statusOf(a)).status === 'processing', 10_000);
    // The claim and the call to payments follow each other within milliseconds.
    await sleep(300);
    await checkout.kill();
    await payments.kill();
    expect((await paying).status).toBe(503);

    await checkout.start();
    // Past the attempt's bound (two request timeouts), the session is on the form again,
    // with the reason, though payments is still away.
    await eventually(async () => (await statusOf(a)).status === 'idle', 15_000, 500);
    expect(await statusOf(a)).toMatchObject({ paymentStatus: null, failureCode: 'service_unavailable' });

    await payments.start();
    expect((await pay(b)).status).toBe(200);
    await eventually(async () => (await statusOf(b)).status === 'success', 20_000);
    await eventually(
      async () => (await merchant<Link>('GET', `/v1/payment-links/${link.id}`)).body.usageCount === 1,
    );
    expectLinkRefusal(await pay(a), 'link_exhausted');
  });
});
