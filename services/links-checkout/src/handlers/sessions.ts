import type { OperationHandler } from '@mmp/platform';
import { CreateCheckoutSessionBody, type checkoutApi } from '@mmp/protocol';
import { insertSession } from '../store/sessions.js';
import type { Deps } from '../deps.js';
import { cancelSession, paySession } from '../use-cases/pay.js';
import { buildSession, currentSession } from '../use-cases/sessions.js';
import { PaySessionBody, parseBody } from './schemas.js';
import { merchantOf, toCheckoutSession, toSessionStatus } from './views.js';

type Api = typeof checkoutApi;

/** Checkout sessions: the merchant's create, and what the hosted page reads and does. */
export function sessionHandlers(deps: Deps) {
  const { settings } = deps;

  const create: OperationHandler<Api['create']> = async (request, { actor }) => {
    const body = parseBody(CreateCheckoutSessionBody, request.body);
    const session = buildSession(deps, {
      projectId: actor.projectId,
      livemode: actor.livemode,
      origin: 'merchant',
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      successUrl: body.successUrl,
      cancelUrl: body.cancelUrl,
      customer: body.customer,
      metadata: body.metadata,
    });
    await insertSession(deps.db, session);
    const owner = merchantOf(await deps.projects.get(actor.projectId));
    return { status: 201, body: toCheckoutSession(session, settings.publicUrl, owner) };
  };

  const retrieve: OperationHandler<Api['retrieve']> = async (request) => {
    const session = await currentSession(deps, request.params.id);
    const owner = merchantOf(await deps.projects.get(session.projectId));
    return { status: 200, body: toCheckoutSession(session, settings.publicUrl, owner) };
  };

  const status: OperationHandler<Api['status']> = async (request) => ({
    status: 200,
    body: toSessionStatus(await currentSession(deps, request.params.id)),
  });

  const pay: OperationHandler<Api['pay']> = async (request, { requestId }) => {
    const body = parseBody(PaySessionBody, request.body);
    const key = request.headers['idempotency-key'];
    const session = await paySession(deps, request.params.id, body, requestId, key);
    return { status: 200, body: toSessionStatus(session) };
  };

  const cancel: OperationHandler<Api['cancel']> = async (request, { requestId }) => ({
    status: 200,
    body: toSessionStatus(await cancelSession(deps, request.params.id, requestId)),
  });

  return { create, retrieve, status, pay, cancel };
}
