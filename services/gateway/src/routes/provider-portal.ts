import { z } from 'zod';
import { RailInput, RailUpdate, providerPortalApi as api } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const railParams = z.object({ railId: z.string() });
const provider = routeGroup({ auth: 'provider', errorForm: 'envelope', tag: 'Provider portal' });
const rail = '/v1/provider/rails/:railId';

/** Provider portal (provider API key `sk_…` as Bearer): the provider's own rails and the protocol schema. */
export const providerPortalRoutes: ForwardedRoute[] = [
  provider('GET', '/v1/provider/profile', api.profile),
  provider('POST', '/v1/provider/rails', api.createRail, { body: RailInput }),
  provider('GET', '/v1/provider/rails', api.listRails),
  provider('GET', rail, api.getRail, { params: railParams }),
  provider('POST', `${rail}/test`, api.testRail, { params: railParams }),
  provider('POST', `${rail}/activate`, api.activateRail, { params: railParams }),
  provider('PATCH', rail, api.updateRail, { params: railParams, body: RailUpdate }),
  provider('POST', `${rail}/disable`, api.disableRail, { params: railParams }),
  provider('POST', `${rail}/enable`, api.enableRail, { params: railParams }),
  provider('DELETE', rail, api.deleteRail, { params: railParams }),
  provider('POST', `${rail}/roll-secret`, api.rollRailSecret, { params: railParams }),
  provider('GET', '/v1/provider/agent/assist/protocol-v1-schema', api.protocolSchema),
];
