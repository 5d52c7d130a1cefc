import type { OperationHandler } from '@mmp/platform';
import { appError, settlementEventJsonSchema, type ActorOf, type providerPortalApi } from '@mmp/protocol';
import { providerView } from '../domain/provider.js';
import { railView } from '../domain/rail.js';
import { certifiedChannelsByProvider } from '../store/channel-badges.js';
import { listProviderRails } from '../store/rails.js';
import type { RouterDeps } from '../use-cases/deps.js';
import { existingProvider } from '../use-cases/providers.js';
import {
  activateRail,
  createRail,
  deleteRail,
  ownRail,
  putInService,
  rollRailSecret,
  testRail,
  updateRail,
} from '../use-cases/rails.js';

type Portal = typeof providerPortalApi;

/**
 * The provider an operation acts for: a provider acts for itself only; an admin (the `mmp`
 * command, the admin mirror of the portal) names it in the path.
 */
export function actingProviderId(
  actor: ActorOf<'provider' | 'admin'>,
  params: Record<string, string>,
): string {
  if (actor.kind === 'provider') return actor.providerId;
  if (params.providerId) return params.providerId;
  throw appError('insufficient_permissions', 'An admin names the provider in the path.');
}

/** The provider portal (a provider's key, or an admin for it): its profile and its rails. */
export function portalHandlers(deps: RouterDeps): { [K in keyof Portal]: OperationHandler<Portal[K]> } {
  const railOf = (request: { params: Record<string, string> }, actor: ActorOf<'provider' | 'admin'>) =>
    ownRail(deps, actingProviderId(actor, request.params), request.params.railId);
  return {
    profile: async (request, { actor }) => {
      const provider = await existingProvider(deps, actingProviderId(actor, request.params));
      const badges = await certifiedChannelsByProvider(deps.db, provider._id);
      return { status: 200, body: providerView(provider, badges.get(provider._id) ?? []) };
    },
    createRail: async (request, { actor }) => {
      const { rail, secret } = await createRail(deps, actingProviderId(actor, request.params), request.body);
      return { status: 201, body: { ...railView(rail), ...(secret ? { secret } : {}) } };
    },
    listRails: async (request, { actor }) => {
      const rails = await listProviderRails(deps.db, actingProviderId(actor, request.params));
      return { status: 200, body: { data: rails.map(railView) } };
    },
    getRail: async (request, { actor }) => ({ status: 200, body: railView(await railOf(request, actor)) }),
    testRail: async (request, { actor }) => ({
      status: 200,
      body: railView(await testRail(deps, await railOf(request, actor))),
    }),
    activateRail: async (request, { actor }) => ({
      status: 200,
      body: railView(await activateRail(deps, await railOf(request, actor))),
    }),
    updateRail: async (request, { actor }) => ({
      status: 200,
      body: railView(await updateRail(deps, await railOf(request, actor), request.body)),
    }),
    disableRail: async (request, { actor }) => ({
      status: 200,
      body: railView(await putInService(deps, await railOf(request, actor), false)),
    }),
    enableRail: async (request, { actor }) => ({
      status: 200,
      body: railView(await putInService(deps, await railOf(request, actor), true)),
    }),
    deleteRail: async (request, { actor }) => {
      const rail = await railOf(request, actor);
      await deleteRail(deps, rail);
      return { status: 200, body: { id: rail._id, deleted: true as const } };
    },
    rollRailSecret: async (request, { actor }) => {
      const { rail, secret } = await rollRailSecret(deps, await railOf(request, actor));
      return { status: 200, body: { ...railView(rail), secret } };
    },
    /** The served JSON Schema is generated from the zod schema that validates settlements. */
    protocolSchema: async () => ({ status: 200, body: settlementEventJsonSchema() }),
  };
}
