import { z } from 'zod';
import { eventsOf, httpOperationsOf } from '../bus/contract.js';
import {
  PayoutEventData,
  RefundEventData,
  TransferOutcomeData,
  TransferRequestedData,
} from '../bus/events.js';
import { Balance, Payout, PayoutList, Refund, RefundList } from '../merchant/transfer.js';

const merchant = ['merchant'] as const;
const refundReader = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'refunds:read' });
const refundWriter = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'refunds:write' });
const payoutReader = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'payouts:read' });
const payoutWriter = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'payouts:write' });
const balanceReader = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'balance:read' });
const admin = httpOperationsOf({ service: 'payments', actors: ['admin'] });
const paymentsEvent = eventsOf('payments');
const routerEvent = eventsOf('provider-router');

/**
 * The gates every refund and payout passes before any order, each with its own code:
 * not enough available balance (400), no payout-capable rail for the network and
 * environment (409), a live key while no live rail pays out (403).
 */
const GATES = [
  'insufficient_available_balance',
  'payout_rail_unavailable',
  'live_payouts_unavailable',
] as const;

/** Refunds of a payment (simple error form, like the payment they belong to). */
export const refundsApi = {
  create: refundWriter({
    name: 'refunds.create',
    responses: { 201: Refund },
    errors: [
      'validation_error',
      'invalid_request',
      'invalid_amount',
      'resource_not_found',
      'invalid_state',
      'idempotency_conflict',
      ...GATES,
    ],
    summary:
      'Refund a COMPLETED or PARTIALLY_REFUNDED payment (amount default: all that remains); the sum of its refunds never exceeds its amount',
  }),
  list: refundReader({
    name: 'refunds.list',
    responses: { 200: RefundList },
    errors: ['resource_not_found'],
    summary: "A payment's refunds, newest first",
  }),
  retrieve: refundReader({
    name: 'refunds.retrieve',
    responses: { 200: Refund },
    errors: ['resource_not_found'],
    summary: 'Retrieve one refund of a payment',
  }),
};

/** Payouts from the available balance (simple error form, like payments). */
export const payoutsApi = {
  create: payoutWriter({
    name: 'payouts.create',
    responses: { 201: Payout },
    errors: [
      'validation_error',
      'invalid_request',
      'invalid_phone',
      'duplicate_transaction',
      'idempotency_conflict',
      ...GATES,
    ],
    summary:
      'Send money to a phone number from the available balance; reference unique per project and environment',
  }),
  list: payoutReader({
    name: 'payouts.list',
    responses: { 200: PayoutList },
    errors: ['invalid_request'],
    summary: 'List payouts, newest first, with the payments list pagination',
  }),
  retrieve: payoutReader({
    name: 'payouts.retrieve',
    responses: { 200: Payout },
    errors: ['resource_not_found'],
    summary: 'Retrieve a payout',
  }),
};

export const balanceApi = {
  retrieve: balanceReader({
    name: 'balance.retrieve',
    responses: { 200: Balance },
    summary: 'Available and pending amounts per currency for the key’s project and environment',
  }),
  rebuild: admin({
    name: 'balance.rebuild',
    responses: {
      200: z.object({
        events: z.number().int(),
        accounts: z.number().int(),
        entries: z.number().int(),
        matches: z.boolean(),
        /** Accounts whose live figures differ from the stream's (empty when `matches`). */
        mismatches: z.array(
          z.object({
            account: z.string(),
            live: z.object({ available: z.number().int(), pending: z.number().int() }),
            rebuilt: z.object({ available: z.number().int(), pending: z.number().int() }),
          }),
        ),
      }),
    },
    errors: ['invalid_state'],
    summary:
      'Recompute every balance from the event stream (completed payments, transfer requests and outcomes) and say whether each equals the live one',
  }),
};

export const transferEvents = {
  requested: paymentsEvent({
    type: 'transfer.requested',
    data: TransferRequestedData,
    // payments reads its own requests back only to rebuild the balance from the stream.
    consumers: ['provider-router', 'payments'],
    summary:
      'A refund or payout passed its gates and was debited: provider-router routes its payout.execute order',
  }),
  settled: routerEvent({
    type: 'transfer.settled',
    data: TransferOutcomeData,
    consumers: ['payments'],
    summary:
      "A transfer's outcome: its pexo_ order's settlement, or FAILED when no rail could take the order",
  }),
};

export const refundEvents = {
  completed: paymentsEvent({
    type: 'refund.completed',
    data: RefundEventData,
    consumers: ['payments'],
    summary:
      'The money went back to the payer: the merchant hears of it through transaction.refunded (customers net their totals from the payment.(partially_)refunded written with it)',
  }),
  failed: paymentsEvent({
    type: 'refund.failed',
    data: RefundEventData,
    consumers: ['payments'],
    summary: 'The refund failed (failureCode says why); the payment keeps its status',
  }),
};

export const payoutEvents = {
  completed: paymentsEvent({
    type: 'payout.completed',
    data: PayoutEventData,
    consumers: ['payments'],
    summary: 'The recipient was paid: the merchant hears of it through payout.completed',
  }),
  failed: paymentsEvent({
    type: 'payout.failed',
    data: PayoutEventData,
    consumers: ['payments'],
    summary: 'The payout failed and its amount is available again',
  }),
};
