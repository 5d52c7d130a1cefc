import { z } from 'zod';
import { secretHint, type Operation } from '@mmp/platform';
import { appError, newWebhookSecret, parseOrThrow, requireActor } from '@mmp/protocol';
import { CLOSED_BREAKER } from '../domain/breaker.js';
import { newRailId } from '../domain/provider.js';
import { activationRefusal, parseRailInput, railView, type Rail } from '../domain/rail.js';
import { findProvider } from './providers.js';
import { testRail } from './rail-test.js';
import { actingProviderId, isoNow, notFound, rolledMeanwhile, type RouterDeps } from './deps.js';

/** A rail of the acting provider; another provider's rail is "not found", never "forbidden". */
export async function findOwnRail(
  deps: RouterDeps,
  providerId: string,
  railId: string | undefined,
): Promise<Rail> {
  const rail = railId ? await deps.db.rails.findOne({ _id: railId, providerId }) : null;
  if (!rail) throw notFound('Rail');
  return rail;
}

const CredentialsInput = z.object({ railId: z.string().min(1) }).strict();

export function railOperations(deps: RouterDeps): Record<string, Operation> {
  const { db, box } = deps;
  return {
    'rails.create': async (request, { actor }) => {
      const provider = await findProvider(deps, actingProviderId(actor, request.params));
      const input = parseRailInput(request.body ?? {});
      const secret = input.transport === 'webhook' ? newWebhookSecret() : null;
      const now = isoNow(deps);
      const rail: Rail = {
        _id: newRailId(),
        providerId: provider._id,
        transport: input.transport,
        endpoint: input.endpoint ?? null,
        sealedSecret: secret ? box.seal(secret) : null,
        secretHint: secret ? secretHint(secret) : null,
        networks: input.networks,
        countries: input.countries,
        currencies: input.currencies,
        supportsPayout: input.supportsPayout,
        environment: input.environment,
        priority: input.priority,
        status: 'PENDING',
        certified: false,
        lastTest: null,
        breaker: CLOSED_BREAKER,
        breakerRev: 0,
        createdAt: now,
        updatedAt: now,
      };
      await db.rails.insertOne(rail);
      // The webhook secret is shown this once; afterwards only its hint.
      return { status: 201, body: { ...railView(rail), ...(secret ? { secret } : {}) } };
    },
    'rails.list': async (request, { actor }) => {
      const providerId = actingProviderId(actor, request.params);
      const rails = await db.rails.find({ providerId }, { sort: { createdAt: 1 } });
      return { status: 200, body: { data: rails.map(railView) } };
    },
    'rails.get': async (request, { actor }) => {
      const rail = await findOwnRail(deps, actingProviderId(actor, request.params), request.params.railId);
      return { status: 200, body: railView(rail) };
    },
    'rails.roll-secret': async (request, { actor }) => {
      const rail = await findOwnRail(deps, actingProviderId(actor, request.params), request.params.railId);
      if (rail.transport !== 'webhook')
        throw appError('invalid_state', 'A pull rail has no webhook secret to roll.');
      const secret = newWebhookSecret();
      // Guarded on the secret read: of two rolls at once, the one whose secret is not stored fails.
      const updated = await db.rails.findOneAndUpdate(
        { _id: rail._id, sealedSecret: rail.sealedSecret },
        { $set: { sealedSecret: box.seal(secret), secretHint: secretHint(secret), updatedAt: isoNow(deps) } },
      );
      if (!updated) throw rolledMeanwhile();
      return { status: 200, body: { ...railView(updated), secret } };
    },
    'rails.test': async (request, { actor }) => {
      const rail = await findOwnRail(deps, actingProviderId(actor, request.params), request.params.railId);
      return { status: 200, body: railView(await testRail(deps, rail)) };
    },
    'rails.activate': async (request, { actor }) => {
      const rail = await findOwnRail(deps, actingProviderId(actor, request.params), request.params.railId);
      if (rail.status === 'ACTIVE') return { status: 200, body: railView(rail) };
      const refusal = activationRefusal(rail);
      if (refusal) throw appError('invalid_state', refusal);
      const updated = await db.rails.findOneAndUpdate(
        { _id: rail._id, status: 'TESTED' },
        { $set: { status: 'ACTIVE', updatedAt: isoNow(deps) } },
      );
      if (!updated)
        throw appError('invalid_state', 'The rail changed state meanwhile; read it and try again.');
      return { status: 200, body: railView(updated) };
    },
    // provider-delivery signs orders with the rail's secret; only services may read it.
    'rails.credentials': async (request, { actor }) => {
      requireActor(actor, ['service']);
      const { railId } = parseOrThrow(CredentialsInput, request.body ?? {});
      const rail = await db.rails.findOne({ _id: railId });
      if (!rail) throw notFound('Rail');
      return {
        status: 200,
        body: {
          railId: rail._id,
          providerId: rail.providerId,
          transport: rail.transport,
          endpoint: rail.endpoint,
          secret: rail.sealedSecret ? box.open(rail.sealedSecret) : null,
        },
      };
    },
  };
}
