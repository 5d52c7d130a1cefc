import type { OperationHandler, ReceivedEvent } from '@mmp/platform';
import {
  CreatePayoutBody,
  CreateRefundBody,
  PayoutListQuery,
  appError,
  fieldErrors,
  validationMessage,
  type balanceApi,
  type paymentEvents,
  type transferEvents,
  type payoutsApi,
  type refundsApi,
} from '@mmp/protocol';
import type { z } from 'zod';
import { createLedgerReplay } from '../domain/ledger.js';
import { toPayoutView, toRefundView, type Payout } from '../domain/transfer.js';
import type { Scope } from '../store/payments.js';
import { accountsOf, findPayout, findRefund, listPayouts, refundsOfPayment } from '../store/transfers.js';
import type { Deps } from '../deps.js';
import { requestPayout, requestRefund } from '../use-cases/transfers.js';
import { parseQuery } from './input.js';
import { merchantPayment, onceByIdempotencyKey, scopeOf } from './merchant.js';
import { listBody } from './list-body.js';

/**
 * A body that fails its schema is validation_error naming every invalid field (400 at the
 * gateway on merchant routes, as POST /v1/payments answers); a body that is no object is
 * invalid_request.
 */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw appError('invalid_request', 'The request body must be a JSON object.', fields);
  }
  throw appError('validation_error', validationMessage(fields), fields);
}

/** Every stored event the balance is made of, from the first, through `handle`. */
export type LedgerReplay = (
  handle: (
    event: ReceivedEvent<
      typeof paymentEvents.completed | typeof transferEvents.requested | typeof transferEvents.settled
    >,
  ) => Promise<void>,
) => Promise<number>;

type Refunds = typeof refundsApi;
type Payouts = typeof payoutsApi;

const payoutNotFound = () => appError('resource_not_found', 'No such payout.');

/** Refunds of a payment, payouts and the balance: input checked here, the work in use-cases/transfers. */
export function transferHandlers(deps: Deps, replay: LedgerReplay) {
  const createRefund: OperationHandler<Refunds['create']> = async (request, { actor, requestId }) => {
    const scope = scopeOf(actor);
    const body = parseBody(CreateRefundBody, request.body);
    const token = request.params.token;
    const payload = { token, body: request.body ?? null };
    return onceByIdempotencyKey(deps, 'refunds.create', request, scope, payload, async (key) => {
      const refund = await requestRefund(
        deps,
        scope,
        await merchantPayment(deps, token, scope),
        body,
        key,
        requestId,
      );
      return { status: 201, body: toRefundView(refund) };
    });
  };

  const listRefunds: OperationHandler<Refunds['list']> = async (request, { actor }) => {
    const payment = await merchantPayment(deps, request.params.token, scopeOf(actor));
    const refunds = await refundsOfPayment(deps.db, payment.id);
    return { status: 200, body: { data: refunds.map(toRefundView), has_more: false } };
  };

  const retrieveRefund: OperationHandler<Refunds['retrieve']> = async (request, { actor }) => {
    const payment = await merchantPayment(deps, request.params.token, scopeOf(actor));
    const refund = request.params.refundId ? await findRefund(deps.db, request.params.refundId) : null;
    if (!refund || refund.paymentId !== payment.id) throw appError('resource_not_found', 'No such refund.');
    return { status: 200, body: toRefundView(refund) };
  };

  const createPayout: OperationHandler<Payouts['create']> = async (request, { actor, requestId }) => {
    const scope = scopeOf(actor);
    const body = parseBody(CreatePayoutBody, request.body);
    return onceByIdempotencyKey(deps, 'payouts.create', request, scope, request.body, async (key) => {
      const payout = await requestPayout(deps, scope, body, key, requestId);
      return { status: 201, body: toPayoutView(payout) };
    });
  };

  const retrievePayout: OperationHandler<Payouts['retrieve']> = async (request, { actor }) => {
    const id = request.params.payoutId;
    const payout = id ? await findPayout(deps.db, id, scopeOf(actor)) : null;
    if (!payout) throw payoutNotFound();
    return { status: 200, body: toPayoutView(payout) };
  };

  const cursorPayout = async (
    id: string | undefined,
    scope: Scope,
    name: string,
  ): Promise<Payout | undefined> => {
    if (!id) return undefined;
    const payout = await findPayout(deps.db, id, scope);
    if (!payout) {
      throw appError('invalid_request', `${name} does not name a payout of this project and environment.`, [
        { field: name, message: 'unknown payout id' },
      ]);
    }
    return payout;
  };

  const listPayoutsHandler: OperationHandler<Payouts['list']> = async (request, { actor }) => {
    const scope = scopeOf(actor);
    const query = parseQuery(PayoutListQuery, request.query);
    const after = await cursorPayout(query.starting_after, scope, 'starting_after');
    const before = await cursorPayout(query.ending_before, scope, 'ending_before');
    const page = await listPayouts(deps.db, scope, query, { after, before });
    return { status: 200, body: listBody(page.items.map(toPayoutView), page, query, { after, before }) };
  };

  const balance: OperationHandler<(typeof balanceApi)['retrieve']> = async (_request, { actor }) => {
    const accounts = await accountsOf(deps.db, scopeOf(actor));
    return {
      status: 200,
      body: {
        object: 'balance' as const,
        livemode: actor.livemode,
        balances: accounts.map((a) => ({ currency: a.currency, available: a.available, pending: a.pending })),
      },
    };
  };

  let rebuilding = false;
  const rebuild: OperationHandler<(typeof balanceApi)['rebuild']> = async () => {
    if (rebuilding) throw appError('invalid_state', 'A balance rebuild is already running.');
    rebuilding = true;
    try {
      const ledger = createLedgerReplay();
      const events = await replay((event) => {
        if (event.type === 'payment.completed') ledger.completed(event.data.payment);
        else if (event.type === 'transfer.requested') ledger.requested(event.data);
        else ledger.settled(event.data);
        return Promise.resolve();
      });
      const live = new Map((await deps.db.accounts.find({})).map((account) => [account._id, account]));
      const mismatches = [];
      for (const id of new Set([...live.keys(), ...ledger.accounts.keys()])) {
        const mine = live.get(id) ?? { available: 0, pending: 0 };
        const rebuilt = ledger.accounts.get(id) ?? { available: 0, pending: 0 };
        if (mine.available !== rebuilt.available || mine.pending !== rebuilt.pending) {
          mismatches.push({
            account: id,
            live: { available: mine.available, pending: mine.pending },
            rebuilt: { available: rebuilt.available, pending: rebuilt.pending },
          });
        }
      }
      const entries = [...ledger.accounts.values()].reduce((sum, account) => sum + account.entries, 0);
      return {
        status: 200,
        body: {
          events,
          accounts: ledger.accounts.size,
          entries,
          matches: mismatches.length === 0,
          mismatches,
        },
      };
    } finally {
      rebuilding = false;
    }
  };

  return {
    createRefund,
    listRefunds,
    retrieveRefund,
    createPayout,
    retrievePayout,
    listPayouts: listPayoutsHandler,
    balance,
    rebuild,
  };
}
