import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { createTestSystem } from '@mmp/platform/testing';
import { appError, balanceApi, payoutsApi, refundsApi, type Payout, type Refund } from '@mmp/protocol';
import { forwardedRoutes } from '@mmp/gateway';
import { runMmp, startGatewayOnStandIn } from './harness.js';

/**
 * The refund, payout and balance commands against the real gateway (keys, guard, routes),
 * with payments answering from a stub: what the CLI sends (path, body, Idempotency-Key) and
 * what it prints.
 */
const ADMIN_TOKEN = 'adm_cli_transfers_token_0123456789ab';
const system = createTestSystem('clitransfers');
let gateway: Awaited<ReturnType<typeof startGatewayOnStandIn>> | undefined;
let projectId: string;
let secretKey: string;
const received: { operation: string; body: unknown; idempotencyKey: string | undefined }[] = [];

const NOW = '2026-11-25T10:00:00.000Z';
/** A transfer the provider has not settled yet, in test mode. */
const UNSETTLED = {
  livemode: false,
  failureCode: null,
  failureMessage: null,
  createdAt: NOW,
  updatedAt: NOW,
  completedAt: null,
} as const;
const refund: Refund = {
  id: 'rf_CliTransfersRefund000001',
  object: 'refund',
  paymentToken: 'pay_CliTransfersPayment0001',
  amount: 2000,
  currency: 'XAF',
  status: 'PENDING',
  reason: 'damaged',
  ...UNSETTLED,
};
const payout = (): Payout => ({
  id: 'po_CliTransfersPayout000001',
  object: 'payout',
  projectId,
  amount: 3000,
  currency: 'XAF',
  status: 'PENDING',
  recipient: { phone: '+237690000001' },
  network: 'ORANGE_MONEY',
  reference: 'supplier-42',
  description: null,
  metadata: {},
  ...UNSETTLED,
});

const mmp = (args: string[], env: Record<string, string> = {}) =>
  runMmp(args, { MMP_URL: gateway!.url, MMP_SECRET_KEY: secretKey, ...env });

/** `mmp payout create` of `amount` to the test's payee. */
const payoutCreate = (amount: string, reference: string, ...more: string[]) =>
  mmp([
    'payout',
    'create',
    '--amount',
    amount,
    '--phone',
    '+237690000001',
    '--reference',
    reference,
    ...more,
  ]);
const record = (operationName: string, request: { body?: unknown; headers?: Record<string, string> }) =>
  received.push({
    operation: operationName,
    body: request.body,
    idempotencyKey: request.headers?.['idempotency-key'],
  });

beforeAll(async () => {
  const routes = forwardedRoutes.filter((r) =>
    /^\/v1\/(payouts|balance|payments\/:token\/refunds)/.test(r.url),
  );
  gateway = await startGatewayOnStandIn(system, ADMIN_TOKEN, routes, [
    operation(refundsApi.create, async (request) => {
      record('refunds.create', request);
      return { status: 201, body: refund };
    }),
    operation(refundsApi.list, async () => ({ status: 200, body: { data: [refund], has_more: false } })),
    operation(payoutsApi.create, async (request) => {
      record('payouts.create', request);
      if ((request.body as { amount: number }).amount > 1_000_000)
        throw appError('insufficient_available_balance', 'The available balance does not cover 2000000 XAF.');
      return { status: 201, body: payout() };
    }),
    operation(payoutsApi.list, async () => ({
      status: 200,
      body: { data: [payout()], has_more: false, meta: { limit: 20, total: 1, page: 1 } },
    })),
    operation(balanceApi.retrieve, async () => ({
      status: 200,
      body: {
        object: 'balance',
        livemode: false,
        balances: [{ currency: 'XAF', available: 12000, pending: 3000 }],
      },
    })),
  ]);
  const created = await fetch(`${gateway.url}/v1/admin/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Transfers Shop' }),
  });
  const project = (await created.json()) as {
    id: string;
    keys: { kind: string; livemode: boolean; key: string }[];
  };
  projectId = project.id;
  secretKey = project.keys.find((k) => k.kind === 'secret' && !k.livemode)!.key;
});

afterAll(async () => {
  await gateway?.stop();
  await system.cleanup();
});

describe('mmp refund, payout and balance', () => {
  it('refund create sends the amount, the reason and an Idempotency-Key, and prints the refund', async () => {
    const result = await mmp([
      'refund',
      'create',
      refund.paymentToken,
      '--amount',
      '2000',
      '--reason',
      'damaged',
      '--idempotency-key',
      'order-77-refund',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(received.at(-1)).toEqual({
      operation: 'refunds.create',
      body: { amount: 2000, reason: 'damaged' },
      idempotencyKey: 'order-77-refund',
    });
    expect(result.stdout).toMatch(/id\s+rf_CliTransfersRefund000001/);
    expect(result.stdout).toMatch(/status\s+PENDING/);
  });

  it('payout create --json prints the payout as JSON, with a fresh Idempotency-Key when none is given', async () => {
    const result = await payoutCreate('3000', 'supplier-42', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'po_CliTransfersPayout000001', status: 'PENDING' });
    expect(received.at(-1)).toMatchObject({
      operation: 'payouts.create',
      body: {
        amount: 3000,
        currency: 'XAF',
        recipient: { phone: '+237690000001' },
        reference: 'supplier-42',
      },
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('lists refunds and payouts, and shows the balance, as tables', async () => {
    const refunds = await mmp(['refund', 'list', refund.paymentToken]);
    expect(refunds.stdout).toMatch(/rf_CliTransfersRefund000001\s+2000\s+XAF\s+PENDING/);
    const payouts = await mmp(['payout', 'list']);
    expect(payouts.stdout).toMatch(/po_CliTransfersPayout000001\s+supplier-42\s+3000/);
    const balance = await mmp(['balance']);
    expect(balance.stdout).toMatch(/XAF\s+12000\s+3000/);
    const json = await mmp(['balance', '--json']);
    expect(JSON.parse(json.stdout).balances).toEqual([{ currency: 'XAF', available: 12000, pending: 3000 }]);
  });

  it("fails with the service's code, and says how to give a key when there is none", async () => {
    const refused = await payoutCreate('2000000', 'x');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('insufficient_available_balance');
    const bad = await mmp(['refund', 'create', refund.paymentToken, '--amount', 'ten']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--amount must be a whole number');
    const keyless = await mmp(['balance'], { MMP_SECRET_KEY: '' });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain('MMP_SECRET_KEY');
  });
});
