import { secretHint, type Operation } from '@mmp/platform';
import { parseOrThrow, requireActor } from '@mmp/protocol';
import { ProprietaryMapping } from '../domain/mapping.js';
import {
  ProviderInput,
  newProviderId,
  newSigningSecret,
  providerView,
  type Provider,
} from '../domain/provider.js';
import { actingProviderId, isoNow, notFound, rolledMeanwhile, type RouterDeps } from './deps.js';

export async function findProvider(deps: RouterDeps, providerId: string): Promise<Provider> {
  const provider = await deps.db.providers.findOne({ _id: providerId });
  if (!provider) throw notFound('Provider');
  return provider;
}

/** Admin operations on providers, and a provider's read of itself. */
export function providerOperations(deps: RouterDeps): Record<string, Operation> {
  const { db, box } = deps;
  const setMapping: Operation = async (request, { actor }) => {
    requireActor(actor, ['admin', 'service']);
    const provider = await findProvider(deps, request.params.providerId ?? '');
    const mapping = parseOrThrow(ProprietaryMapping, request.body ?? {});
    await db.providers.findOneAndUpdate(
      { _id: provider._id },
      { $set: { mapping, updatedAt: isoNow(deps) } },
    );
    return { status: 200, body: { providerId: provider._id, mapping } };
  };

  return {
    // The gateway issues the provider's sk_ API key itself; we hold only the signing secret.
    'providers.create': async (request, { actor }) => {
      requireActor(actor, ['admin', 'service']);
      const input = parseOrThrow(ProviderInput, request.body ?? {});
      const signingSecret = newSigningSecret();
      const now = isoNow(deps);
      const provider: Provider = {
        _id: newProviderId(),
        name: input.name,
        sealedSigningSecret: box.seal(signingSecret),
        signingSecretHint: secretHint(signingSecret),
        mapping: null,
        createdAt: now,
        updatedAt: now,
      };
      await db.providers.insertOne(provider);
      return { status: 201, body: { id: provider._id, name: provider.name, signingSecret } };
    },
    'providers.list': async (_request, { actor }) => {
      requireActor(actor, ['admin', 'service']);
      const providers = await db.providers.find({}, { sort: { createdAt: 1 } });
      return { status: 200, body: { data: providers.map(providerView) } };
    },
    'providers.get': async (request, { actor }) => {
      const provider = await findProvider(deps, actingProviderId(actor, request.params));
      return { status: 200, body: providerView(provider) };
    },
    'providers.roll-signing-secret': async (request, { actor }) => {
      requireActor(actor, ['admin', 'service']);
      const provider = await findProvider(deps, request.params.providerId ?? '');
      const signingSecret = newSigningSecret();
      // Guarded on the secret read: of two rolls at once, the one whose secret is not stored fails.
      const rolled = await db.providers.findOneAndUpdate(
        { _id: provider._id, sealedSigningSecret: provider.sealedSigningSecret },
        {
          $set: {
            sealedSigningSecret: box.seal(signingSecret),
            signingSecretHint: secretHint(signingSecret),
            updatedAt: isoNow(deps),
          },
        },
      );
      if (!rolled) throw rolledMeanwhile();
      return { status: 200, body: { id: provider._id, name: provider.name, signingSecret } };
    },
    'providers.get-mapping': async (request, { actor }) => {
      const provider = await findProvider(deps, actingProviderId(actor, request.params));
      return { status: 200, body: { providerId: provider._id, mapping: provider.mapping } };
    },
    'providers.set-mapping': setMapping,
    // The name the gateway's admin route table uses for the same change.
    'providers.mapping.set': setMapping,
  };
}
