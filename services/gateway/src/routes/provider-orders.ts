import { z } from 'zod';
import { OrderAck, PULL_MAX_WAIT_MS, PullOrdersQuery, pullApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const keyParams = z.object({ idempotencyKey: z.string() });
const provider = routeGroup({ auth: 'provider', errorForm: 'envelope', tag: 'Provider orders' });

/** Pull transport: the provider fetches its own rails' orders and acks them (provider key as Bearer). */
export const providerOrdersRoutes: ForwardedRoute[] = [
  {
    ...provider('GET', '/v1/provider/orders', pullApi.pull, { query: PullOrdersQuery }),
    // A long poll: provider-delivery holds the fetch up to wait_ms (it refuses more).
    heldMs: ({ query }) => {
      const wait = Number(query.wait_ms);
      return Number.isInteger(wait) && wait > 0 ? Math.min(wait, PULL_MAX_WAIT_MS) : 0;
    },
  },
  provider('POST', '/v1/provider/orders/:idempotencyKey/ack', pullApi.ack, {
    params: keyParams,
    body: OrderAck,
  }),
  provider('GET', '/v1/provider/orders/:idempotencyKey', pullApi.get, { params: keyParams }),
];
