import { z } from 'zod';
import { StartRunInput, certificationApi as api } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const railParams = z.object({ railId: z.string() });
const runParams = z.object({ runId: z.string() });
const provider = routeGroup({ auth: 'provider', errorForm: 'envelope', tag: 'Provider certification' });
const runs = '/v1/provider/certification-runs/:runId';

/**
 * Certification in the provider portal (provider key `sk_…`); the admin mirror under
 * /v1/admin/providers/:providerId comes from provider-settlements.ts like the rails'. The live
 * follow (Server-Sent Events) is the gateway's own route (http/certification-events.ts).
 */
export const certificationRoutes: ForwardedRoute[] = [
  provider('POST', '/v1/provider/rails/:railId/certification-runs', api.start, {
    params: railParams,
    body: StartRunInput.optional(),
  }),
  provider('GET', '/v1/provider/rails/:railId/certification-runs', api.list, { params: railParams }),
  provider('GET', runs, api.get, { params: runParams }),
  provider('POST', `${runs}/cases/:case/rerun`, api.rerunCase, {
    params: runParams.extend({ case: z.string() }),
  }),
  provider('GET', `${runs}/report`, api.report, { params: runParams }),
  provider('GET', `${runs}/junit`, api.junit, { params: runParams }),
];
