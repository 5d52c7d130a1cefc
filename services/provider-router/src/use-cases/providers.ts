import { rollSealedSecret, secretHint, setFields } from '@mmp/platform';
import { parseOrThrow } from '@mmp/protocol';
import { ProprietaryMapping } from '../domain/mapping.js';
import { newProviderId, newSigningSecret, type Provider } from '../domain/provider.js';
import { findProvider, insertProvider } from '../store/providers.js';
import { isoNow, notFound, rolledMeanwhile, type RouterDeps, type SigningProvider } from './deps.js';

export async function existingProvider(deps: RouterDeps, providerId: string): Promise<Provider> {
  const provider = await findProvider(deps.db, providerId);
  if (!provider) throw notFound('Provider');
  return provider;
}

/** The provider with its opened signing secret, kept between its settlements; null if unknown. */
export function signingProvider(deps: RouterDeps, providerId: string): Promise<SigningProvider | null> {
  return deps.providers.read(providerId, async () => {
    const provider = await findProvider(deps.db, providerId);
    return provider && { provider, signingSecret: deps.box.open(provider.sealedSigningSecret) };
  });
}

/** A new provider; its settlement signing secret is returned this once (the gateway issues its API key). */
export async function createProvider(deps: RouterDeps, name: string) {
  const signingSecret = newSigningSecret();
  const now = isoNow(deps);
  const provider: Provider = {
    _id: newProviderId(),
    name,
    sealedSigningSecret: deps.box.seal(signingSecret),
    signingSecretHint: secretHint(signingSecret),
    mapping: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertProvider(deps.db, provider);
  return { id: provider._id, name: provider.name, signingSecret };
}

export async function rollSigningSecret(deps: RouterDeps, providerId: string) {
  const provider = await existingProvider(deps, providerId);
  const signingSecret = newSigningSecret();
  const rolled = await rollSealedSecret(
    deps.db.providers,
    provider,
    { sealed: 'sealedSigningSecret', hint: 'signingSecretHint' },
    { secret: signingSecret, box: deps.box, at: isoNow(deps) },
  );
  if (!rolled) throw rolledMeanwhile();
  return { id: provider._id, name: provider.name, signingSecret };
}

/** Validates and stores a provider's proprietary mapping, naming every invalid field. */
export async function configureMapping(deps: RouterDeps, providerId: string, body: unknown) {
  const provider = await existingProvider(deps, providerId);
  const mapping = parseOrThrow(ProprietaryMapping, body ?? {});
  await setFields(deps.db.providers, provider._id, { mapping }, isoNow(deps));
  return { providerId: provider._id, mapping };
}
