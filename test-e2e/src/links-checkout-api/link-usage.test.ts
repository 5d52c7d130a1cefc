import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import {
  createLink,
  expectLinkRefusal,
  expectSimpleError,
  NO_FUNDS,
  PAYS,
  startLink,
  type Link,
  type Session,
  type SessionStatus,
} from './helpers.js';

const shop = useShop('Usage Shop');
const { merchant, shopper } = shop;

const pay = (session: Session, body: unknown = PAYS) =>
  shopper<SessionStatus>('POST', `/v1/checkout/sessions/${session.id}/pay`, body);
const stateOf = async (session: Session) =>
  (await shopper<SessionStatus>('GET', `/v1/checkout/sessions/${session.id}/status`)).body.status;
const until = (session: Session, state: string) =>
  eventually(async () => (await stateOf(session)) === state, 20_000);
const usageOf = async (link: Link) =>
  (await merchant<Link>('GET', `/v1/payment-links/${link.id}`)).body.usageCount;

describe('a session pays only while its link is usable', () => {
  it('refuses a session opened before the link was switched off, then pays once it is on again', async () => {
    const link = await createLink(merchant, { name: 'Switch', amount: 1500 });
    const session = await startLink(shopper, link);
    await merchant('PATCH', `/v1/payment-links/${link.id}`, { status: 'INACTIVE' });
    expectLinkRefusal(await pay(session), 'link_inactive');
    expect(await stateOf(session)).toBe('idle');
    await merchant('PATCH', `/v1/payment-links/${link.id}`, { status: 'ACTIVE' });
    expect((await pay(session)).status).toBe(200);
    await until(session, 'success');
  });

  it('refuses a session opened before the link expired', async () => {
    const link = await createLink(merchant, {
      name: 'Soon',
      amount: 1500,
      expiresAt: new Date(Date.now() + 1000).toISOString(),
    });
    const session = await startLink(shopper, link);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectLinkRefusal(await pay(session), 'link_expired');
  });

  it('refuses a session of a deleted link, while a payment already under way still completes', async () => {
    const link = await createLink(merchant, { name: 'Gone', amount: 1500 });
    const [paying, open] = [await startLink(shopper, link), await startLink(shopper, link)];
    expect((await pay(paying)).status).toBe(200);
    expect((await merchant('DELETE', `/v1/payment-links/${link.id}`)).status).toBe(200);
    const refused = expectLinkRefusal(await pay(open), 'link_inactive');
    expect(refused.message).toBe('This payment link is no longer available.');
    await until(paying, 'success');
    expect((await shopper('GET', `/v1/checkout/sessions/${paying.id}`)).status).toBe(200);
  });

  it('refuses a session opened before the link was used up', async () => {
    const link = await createLink(merchant, { name: 'Once', amount: 1500, maxUses: 1 });
    const [first, second] = [await startLink(shopper, link), await startLink(shopper, link)];
    expect((await pay(first)).status).toBe(200);
    await until(first, 'success');
    await eventually(async () => (await usageOf(link)) === 1, 10_000);
    expectLinkRefusal(await pay(second), 'link_exhausted');
    expectLinkRefusal(await shopper('POST', `/v1/pay/${link.shortCode}/sessions`, {}), 'link_exhausted');
  });
});

describe('maxUses under concurrency', () => {
  it('lets one of many sessions paying at once through a maxUses 1 link, and counts one use', async () => {
    const link = await createLink(merchant, { name: 'Last one', amount: 2000, maxUses: 1 });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => startLink(shopper, link)));
    const answers = await Promise.all(sessions.map((session) => pay(session)));
    const paid = answers.filter((a) => a.status === 200);
    expect(paid, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) expectLinkRefusal(answer, 'link_exhausted');

    const winner = sessions[answers.findIndex((a) => a.status === 200)]!;
    await until(winner, 'success');
    await eventually(async () => (await usageOf(link)) === 1, 10_000);
    // Nobody gets through afterwards either, and the count stays at maxUses.
    const late = await Promise.all(sessions.filter((s) => s !== winner).map((session) => pay(session)));
    for (const answer of late) expectLinkRefusal(answer, 'link_exhausted');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await usageOf(link)).toBe(1);
  });

  it('gives the use back when the payment fails, so the next payer can use it', async () => {
    const link = await createLink(merchant, { name: 'Retry', amount: 2000, maxUses: 1 });
    const [poor, next] = [await startLink(shopper, link), await startLink(shopper, link)];
    expect((await pay(poor, NO_FUNDS)).status).toBe(200);
    const held = expectLinkRefusal(await pay(next), 'link_exhausted');
    expect(held.message).toMatch(/in progress/);
    await until(poor, 'failed');
    await eventually(async () => (await pay(next)).status === 200, 10_000);
    await until(next, 'success');
    await eventually(async () => (await usageOf(link)) === 1, 10_000);
    expectSimpleError(await pay(poor), 409, 'invalid_state');
  });
});
