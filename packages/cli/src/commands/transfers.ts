import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Balance, Payout, PayoutList, Refund, RefundList } from '@mmp/protocol';
import { CliError } from '../client.js';
import { wantsJson, type Context } from '../context.js';
import { emit, summary, table } from '../output.js';

type KeyOption = { key?: string; idempotencyKey?: string };

function amount(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new CliError(`--amount must be a whole number of francs, at least 1 (got ${value})`);
  return parsed;
}

const refundRow = (r: Refund) => [r.id, r.amount, r.currency, r.status, r.failureCode, r.createdAt];
const payoutRow = (p: Payout) => [
  p.id,
  p.reference,
  p.amount,
  p.currency,
  p.recipient.phone,
  p.network,
  p.status,
  p.failureCode,
];

/**
 * Refunds, payouts and the balance, as the merchant (its sk_ key: --key or MMP_SECRET_KEY).
 * Creating commands send an Idempotency-Key (--idempotency-key, else a fresh one printed with
 * the result), so a command retried with the same key has the effect of one.
 */
export function registerTransferCommands(program: Command, ctx: Context): void {
  const withKey = (command: Command) =>
    command.option('--key <sk>', "the project's secret key (default: MMP_SECRET_KEY)");
  const creating = (command: Command) =>
    withKey(command).option('--idempotency-key <key>', 'retry a create safely (default: a new key)');

  const refund = program.command('refund').description("A payment's refunds (merchant key)");
  creating(refund.command('create').argument('<paymentToken>', 'the payment (pay_…)'))
    .description('Refund a COMPLETED or PARTIALLY_REFUNDED payment (default: all that remains)')
    .option('--amount <francs>', 'part of the payment to refund', amount)
    .option('--reason <text>', 'why, for the merchant’s records')
    .action(async (token: string, options: KeyOption & { amount?: number; reason?: string }, command) => {
      const idempotencyKey = options.idempotencyKey ?? randomUUID();
      const created = await ctx
        .merchant(options.key)
        .request<Refund>('POST', `/v1/payments/${encodeURIComponent(token)}/refunds`, {
          body: { amount: options.amount, reason: options.reason },
          idempotencyKey,
        });
      emit(wantsJson(command), created, () => `${summary(created)}\nidempotencyKey  ${idempotencyKey}`);
    });
  withKey(refund.command('list').argument('<paymentToken>', 'the payment (pay_…)'))
    .description("A payment's refunds, newest first")
    .action(async (token: string, options: KeyOption, command: Command) => {
      const result = await ctx
        .merchant(options.key)
        .request<RefundList>('GET', `/v1/payments/${encodeURIComponent(token)}/refunds`);
      emit(wantsJson(command), result, () =>
        table([['ID', 'AMOUNT', 'CURRENCY', 'STATUS', 'FAILURE', 'CREATED'], ...result.data.map(refundRow)]),
      );
    });

  const payout = program.command('payout').description('Payouts from the balance (merchant key)');
  creating(payout.command('create'))
    .description('Send money to a phone number from the available balance')
    .requiredOption('--amount <francs>', 'amount in francs', amount)
    .requiredOption('--phone <e164>', "the recipient's number, e.g. +237690000001")
    .requiredOption('--reference <ref>', 'your reference, unique per project and environment')
    .option('--currency <code>', 'XAF or XOF', 'XAF')
    .option('--network <network>', "default: the number's operator")
    .option('--description <text>', 'what it is for')
    .action(
      async (
        options: KeyOption & {
          amount: number;
          phone: string;
          reference: string;
          currency: string;
          network?: string;
          description?: string;
        },
        command: Command,
      ) => {
        const idempotencyKey = options.idempotencyKey ?? randomUUID();
        const created = await ctx.merchant(options.key).request<Payout>('POST', '/v1/payouts', {
          body: {
            amount: options.amount,
            currency: options.currency,
            recipient: { phone: options.phone },
            network: options.network,
            reference: options.reference,
            description: options.description,
          },
          idempotencyKey,
        });
        emit(wantsJson(command), created, () => `${summary(created)}\nidempotencyKey  ${idempotencyKey}`);
      },
    );
  withKey(payout.command('list'))
    .description('Payouts, newest first')
    .option('--status <status>', 'PENDING, COMPLETED or FAILED')
    .option('--limit <n>', 'how many (1 to 100)', '20')
    .action(async (options: KeyOption & { status?: string; limit: string }, command: Command) => {
      const result = await ctx.merchant(options.key).request<PayoutList>('GET', '/v1/payouts', {
        query: { status: options.status, limit: options.limit },
      });
      emit(wantsJson(command), result, () =>
        table([
          ['ID', 'REFERENCE', 'AMOUNT', 'CURRENCY', 'RECIPIENT', 'NETWORK', 'STATUS', 'FAILURE'],
          ...result.data.map(payoutRow),
        ]),
      );
    });
  withKey(payout.command('get').argument('<payoutId>', 'the payout (po_…)'))
    .description('One payout')
    .action(async (id: string, options: KeyOption, command: Command) => {
      const found = await ctx
        .merchant(options.key)
        .request<Payout>('GET', `/v1/payouts/${encodeURIComponent(id)}`);
      emit(wantsJson(command), found, () => summary(found));
    });

  withKey(program.command('balance'))
    .description('What the project may send out, per currency (available, and pending transfers)')
    .action(async (options: KeyOption, command: Command) => {
      const balance = await ctx.merchant(options.key).request<Balance>('GET', '/v1/balance');
      emit(wantsJson(command), balance, () =>
        table([
          ['CURRENCY', 'AVAILABLE', 'PENDING'],
          ...balance.balances.map((b) => [b.currency, b.available, b.pending]),
        ]),
      );
    });
}
