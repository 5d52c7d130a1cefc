import type { OperationHandler } from '@mmp/platform';
import {
  appError,
  fieldErrors,
  validationMessage,
  type providersAdminApi,
  type routerQueries,
} from '@mmp/protocol';
import { z } from 'zod';
import { providerView } from '../domain/provider.js';
import { certifiedChannelsByProvider } from '../store/channel-badges.js';
import { listProviders } from '../store/providers.js';
import type { RouterDeps } from '../use-cases/deps.js';
import {
  configureMapping,
  createProvider,
  existingProvider,
  rollSigningSecret,
} from '../use-cases/providers.js';
import { reconciliationReport } from '../use-cases/reconciliation.js';

type Admin = typeof providersAdminApi;

const ReconcileQuery = z.object({
  providerId: z.string().min(1, 'providerId is required'),
  date: z.iso.date('date must be a day, YYYY-MM-DD'),
  livemode: z.enum(['true', 'false'], { error: 'livemode must be true or false' }).default('false'),
});

/** What operators do with providers (admin token). */
export function adminHandlers(deps: RouterDeps): { [K in keyof Admin]: OperationHandler<Admin[K]> } {
  const providerIdOf = (request: { params: Record<string, string> }) => request.params.providerId ?? '';
  return {
    list: async () => {
      const badges = await certifiedChannelsByProvider(deps.db);
      const providers = await listProviders(deps.db);
      const data = providers.map((provider) => providerView(provider, badges.get(provider._id) ?? []));
      return { status: 200, body: { data } };
    },
    getMapping: async (request) => {
      const provider = await existingProvider(deps, providerIdOf(request));
      return { status: 200, body: { providerId: provider._id, mapping: provider.mapping } };
    },
    setMapping: async (request) => ({
      status: 200,
      body: await configureMapping(deps, providerIdOf(request), request.body),
    }),
    rollSigningSecret: async (request) => ({
      status: 200,
      body: await rollSigningSecret(deps, providerIdOf(request)),
    }),
    reconciliation: async (request) => {
      const parsed = ReconcileQuery.safeParse(request.query);
      if (!parsed.success) {
        const fields = fieldErrors(parsed.error);
        throw appError('invalid_request', validationMessage(fields), fields);
      }
      const { providerId, date, livemode } = parsed.data;
      return {
        status: 200,
        body: await reconciliationReport(deps, { providerId, date, livemode: livemode === 'true' }),
      };
    },
  };
}

/** providers.create: the gateway issues the API key, this service the signing secret. */
export function createProviderHandler(
  deps: RouterDeps,
): OperationHandler<typeof routerQueries.createProvider> {
  return async ({ name }) => createProvider(deps, name);
}
