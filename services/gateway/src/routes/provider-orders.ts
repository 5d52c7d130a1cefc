import { z } from 'zod';
import { OrderAck, PullOrdersQuery, pullApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const keyParams = z.object({ idempotencyKey: z.string() });
const provider = routeGroup({ auth: 'provider', errorForm: 'envelope', tag: 'Provider orders' });

/** Pull transport: the provider fetches its own rails' orders and acks them (provider key as Bearer). */
export const providerOrdersRoutes: ForwardedRoute[] = [
  {
    ...provider('GET', '/v1/provider/orders', pullApi.pull, { query: PullOrdersQuery }),
    // A long poll: provider-delivery holds the fetch up to wait_ms (a query it refuses holds nothing).
    heldMs: ({ query }) => PullOrdersQuery.safeParse(query).data?.wait_ms ?? 0,
  },
  provider('POST', '/v1/provider/orders/:idempotencyKey/ack', pullApi.ack, {
    params: keyParams,
    body: OrderAck,
  }),
  provider('GET', '/v1/provider/orders/:idempotencyKey', pullApi.get, { params: keyParams }),
];
