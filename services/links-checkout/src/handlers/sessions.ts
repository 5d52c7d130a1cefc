import { DuplicateKeyError, type Operation } from '@mmp/platform';
import { CreateCheckoutSessionBody, requireActor } from '@mmp/protocol';
import { type Deps } from './deps.js';
import { buildSession } from './new-session.js';
import { CreateSessionForPaymentBody, parseBody } from './schemas.js';
import { expireIfDue, findSession } from './session-store.js';
import { sessionUrl, toCheckoutSession, toSessionStatus } from './views.js';

export function sessionOperations(deps: Deps): Record<string, Operation> {
  const { db, settings } = deps;
  return {
    'sessions.create': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const body = parseBody(CreateCheckoutSessionBody, request.body);
      const session = buildSession(deps, {
        projectId: merchant.projectId,
        livemode: merchant.livemode,
        origin: 'merchant',
        amount: body.amount,
        currency: body.currency,
        description: body.description,
        successUrl: body.successUrl,
        cancelUrl: body.cancelUrl,
        customer: body.customer,
        metadata: body.metadata,
      });
      await db.sessions.insertOne(session);
      const owner = await deps.merchants.get(merchant.projectId);
      return { status: 201, body: toCheckoutSession(session, settings.publicUrl, owner) };
    },

    /** Called by payments inside POST /payments: one session per payment, however often asked. */
    'sessions.create-for-payment': async (request, { actor }) => {
      requireActor(actor, ['service']);
      const body = parseBody(CreateSessionForPaymentBody, request.body);
      const existing = await db.sessions.findOne({ forPaymentId: body.paymentId });
      if (existing)
        return { status: 200, body: { id: existing._id, url: sessionUrl(settings.publicUrl, existing._id) } };
      const session = buildSession(deps, {
        projectId: body.projectId,
        livemode: body.livemode,
        origin: 'payment',
        amount: body.amount,
        currency: body.currency,
        description: body.description,
        successUrl: body.returnUrl,
        cancelUrl: body.cancelUrl,
        customer: body.customer,
        payment: {
          id: body.paymentId,
          token: body.token,
          expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
        },
      });
      try {
        await db.sessions.insertOne(session);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        const winner = await db.sessions.findOne({ forPaymentId: body.paymentId });
        if (!winner) throw error;
        return { status: 200, body: { id: winner._id, url: sessionUrl(settings.publicUrl, winner._id) } };
      }
      return { status: 201, body: { id: session._id, url: sessionUrl(settings.publicUrl, session._id) } };
    },

    'sessions.retrieve': async (request) => {
      const session = await expireIfDue(deps, await findSession(deps, request.params.id));
      const merchant = await deps.merchants.get(session.projectId);
      return { status: 200, body: toCheckoutSession(session, settings.publicUrl, merchant) };
    },

    'sessions.status': async (request) => {
      const session = await expireIfDue(deps, await findSession(deps, request.params.id));
      return { status: 200, body: toSessionStatus(session) };
    },
  };
}
