import { z } from 'zod';
import { defineEvent, defineHttpOperation } from '../bus/contract.js';
import {
  PayoutEventData,
  RefundEventData,
  TransferOutcomeData,
  TransferRequestedData,
} from '../bus/events.js';
import { Balance, Payout, PayoutList, Refund, RefundList } from '../merchant/transfer.js';

const merchant = ['merchant'] as const;

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
  create: defineHttpOperation({
    service: 'payments',
    name: 'refunds.create',
    actors: merchant,
    scope: 'refunds:write',
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
  list: defineHttpOperation({
    service: 'payments',
    name: 'refunds.list',
    actors: merchant,
    scope: 'refunds:read',
    responses: { 200: RefundList },
    errors: ['resource_not_found'],
    summary: "A payment's refunds, newest first",
  }),
  retrieve: defineHttpOperation({
    service: 'payments',
    name: 'refunds.retrieve',
    actors: merchant,
    scope: 'refunds:read',
    responses: { 200: Refund },
    errors: ['resource_not_found'],
    summary: 'Retrieve one refund of a payment',
  }),
};

/** Payouts from the available balance (simple error form, like payments). */
export const payoutsApi = {
  create: defineHttpOperation({
    service: 'payments',
    name: 'payouts.create',
    actors: merchant,
    scope: 'payouts:write',
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
  list: defineHttpOperation({
    service: 'payments',
    name: 'payouts.list',
    actors: merchant,
    scope: 'payouts:read',
    responses: { 200: PayoutList },
    errors: ['invalid_request'],
    summary: 'List payouts, newest first, with the payments list pagination',
  }),
  retrieve: defineHttpOperation({
    service: 'payments',
    name: 'payouts.retrieve',
    actors: merchant,
    scope: 'payouts:read',
    responses: { 200: Payout },
    errors: ['resource_not_found'],
    summary: 'Retrieve a payout',
  }),
};

export const balanceApi = {
  retrieve: defineHttpOperation({
    service: 'payments',
    name: 'balance.retrieve',
    actors: merchant,
    scope: 'balance:read',
    responses: { 200: Balance },
    summary: 'Available and pending amounts per currency for the key’s project and environment',
  }),
  rebuild: defineHttpOperation({
    service: 'payments',
    name: 'balance.rebuild',
    actors: ['admin'],
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
  requested: defineEvent({
    type: 'transfer.requested',
    version: 1,
    data: TransferRequestedData,
    producer: 'payments',
    // payments reads its own requests back only to rebuild the balance from the stream.
    consumers: ['provider-router', 'payments'],
    summary:
      'A refund or payout passed its gates and was debited: provider-router routes its payout.execute order',
  }),
  settled: defineEvent({
    type: 'transfer.settled',
    version: 1,
    data: TransferOutcomeData,
    producer: 'provider-router',
    consumers: ['payments'],
    summary:
      "A transfer's outcome: its pexo_ order's settlement, or FAILED when no rail could take the order",
  }),
};

export const refundEvents = {
  completed: defineEvent({
    type: 'refund.completed',
    version: 1,
    data: RefundEventData,
    producer: 'payments',
    consumers: ['payments'],
    summary:
      'The money went back to the payer: the merchant hears of it through transaction.refunded (customers net their totals from the payment.(partially_)refunded written with it)',
  }),
  failed: defineEvent({
    type: 'refund.failed',
    version: 1,
    data: RefundEventData,
    producer: 'payments',
    consumers: ['payments'],
    summary: 'The refund failed (failureCode says why); the payment keeps its status',
  }),
};

export const payoutEvents = {
  completed: defineEvent({
    type: 'payout.completed',
    version: 1,
    data: PayoutEventData,
    producer: 'payments',
    consumers: ['payments'],
    summary: 'The recipient was paid: the merchant hears of it through payout.completed',
  }),
  failed: defineEvent({
    type: 'payout.failed',
    version: 1,
    data: PayoutEventData,
    producer: 'payments',
    consumers: ['payments'],
    summary: 'The payout failed and its amount is available again',
  }),
};
