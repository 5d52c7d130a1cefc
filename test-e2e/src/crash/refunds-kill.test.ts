import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { transferEvents } from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { startOwnProcess, type OwnProcess } from '../support/own-process.js';
import { api } from '../support/http.js';
import { outcomeOf, paySandbox } from '../support/sandbox-payments.js';
import { observeEvents, type Observer } from '../support/observer.js';

/**
 * Issue 14: payments, which owns refunds, is killed with SIGKILL in the middle of a burst of
 * refunds. The merchant retries what went unanswered with the same Idempotency-Keys. Every
 * refund is executed exactly once (one `transfer.requested` per refund, one order), none is
 * lost, and the payments and the balance end where the refunds say.
 */
const PAYMENTS = 6;
const REFUNDS_PER_PAYMENT = 5;
const paymentsEnv = {
  IDEMPOTENCY_STALE_MS: '1000',
  IDEMPOTENCY_WAIT_MS: '200',
  EXPIRY_INTERVAL_MS: '300',
};

let system: RunningSystem;
let payments: OwnProcess;
let project: ProjectKeys;
let merchant: ReturnType<typeof api>;
let observer: Observer<[typeof transferEvents.requested]>;

beforeAll(async () => {
  system = await startSystem({ external: ['payments'] });
  payments = await startOwnProcess(system, 'payments', paymentsEnv);
  project = await system.createProject('Refund Crash Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
  // Watches the orders payments asks for, as provider-router receives them.
  observer = await observeEvents(system, 'provider-router', 'refund-crash-observer', [
    transferEvents.requested,
  ]);
}, 60_000);

afterAll(async () => {
  await observer?.stop();
  await system?.stop();
});

type Request = { key: string; token: string; id?: string; statuses: number[] };

describe('payments killed with SIGKILL during a burst of refunds', () => {
  it('executes every refund once, loses none, and ends every payment REFUNDED', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < PAYMENTS; i += 1) {
      const payment = await paySandbox(system.baseUrl, project.testSecretKey, '+237690000001');
      expect((await outcomeOf(payment.read)).status).toBe('COMPLETED');
      tokens.push(payment.token);
    }
    await eventually(async () => {
      const balance = await merchant<{ balances: { available: number }[] }>('GET', '/v1/balance');
      return balance.body.balances[0]?.available === PAYMENTS * 5000;
    }, 20_000);

    const requests: Request[] = tokens.flatMap((token, p) =>
      Array.from({ length: REFUNDS_PER_PAYMENT }, (_, i) => ({
        key: `refund-${p}-${i}-${Date.now()}`,
        token,
        statuses: [],
      })),
    );
    const refund = async (request: Request) => {
      const reply = await merchant<{ id?: string }>(
        'POST',
        `/v1/payments/${request.token}/refunds`,
        { amount: 1000 },
        { 'idempotency-key': request.key },
      );
      request.statuses.push(reply.status);
      if (reply.status === 201) request.id = reply.body.id;
      return reply;
    };

    let next = 0;
    let killed: Promise<void> | undefined;
    const worker = async () => {
      while (next < requests.length) {
        await refund(requests[next++]!);
        if (!killed && requests.filter((r) => r.id).length >= requests.length / 3) {
          killed = payments.restart();
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(killed).toBeDefined();
    await killed;
    for (const request of requests.filter((r) => !r.id)) {
      await eventually(async () => (await refund(request)).status === 201, 15_000, 200);
    }
    for (const request of requests)
      for (const status of request.statuses) expect([201, 409, 503]).toContain(status);

    const ids = requests.map((r) => r.id!);
    expect(new Set(ids).size).toBe(requests.length);
    // One order request per refund: none lost, none doubled.
    await eventually(
      async () => ids.every((id) => observer.received.some((e) => e.data.transferId === id)),
      20_000,
    );
    for (const id of ids) {
      expect(new Set(observer.received.filter((e) => e.data.transferId === id).map((e) => e.id)).size).toBe(
        1,
      );
    }
    for (const token of tokens) {
      await eventually(
        async () =>
          (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status === 'REFUNDED',
        30_000,
      );
    }
    const balance = await merchant<{ balances: { available: number; pending: number }[] }>(
      'GET',
      '/v1/balance',
    );
    expect(balance.body.balances).toEqual([{ currency: 'XAF', available: 0, pending: 0 }]);
    expect((await system.admin<{ matches: boolean }>('POST', '/v1/admin/balance/rebuild')).matches).toBe(
      true,
    );
  });
});
