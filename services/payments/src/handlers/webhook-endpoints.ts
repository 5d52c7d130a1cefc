import type { OperationHandler } from '@mmp/platform';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  appError,
  parseOrThrow,
  type webhookEndpointsApi,
} from '@mmp/protocol';
import { toDeliveryView, toEndpointView } from '../domain/webhooks.js';
import { listEndpoints } from '../store/webhooks.js';
import type { Deps } from '../deps.js';
import {
  changeEndpoint,
  createEndpoint,
  deliveriesOf,
  ownedEndpoint,
  redeliver,
  removeEndpoint,
  rollSecret,
} from '../use-cases/webhook-endpoints.js';
import { singleQuery } from './input.js';

type Api = typeof webhookEndpointsApi;

/** The merchant's webhook endpoints and their deliveries. */
export function webhookEndpointHandlers(deps: Deps) {
  const create: OperationHandler<Api['create']> = async (request, { actor }) => {
    const body = parseOrThrow(CreateWebhookEndpointBody, request.body ?? {});
    const { endpoint, secret } = await createEndpoint(deps, actor, body);
    return { status: 201, body: { ...toEndpointView(endpoint), secret } };
  };

  const list: OperationHandler<Api['list']> = async (_request, { actor }) => ({
    status: 200,
    body: { data: (await listEndpoints(deps.db, actor)).map(toEndpointView), has_more: false },
  });

  const get: OperationHandler<Api['get']> = async (request, { actor }) => ({
    status: 200,
    body: toEndpointView(await ownedEndpoint(deps, request.params.id, actor)),
  });

  const update: OperationHandler<Api['update']> = async (request, { actor }) => {
    const endpoint = await ownedEndpoint(deps, request.params.id, actor);
    const body = parseOrThrow(UpdateWebhookEndpointBody, request.body ?? {});
    return { status: 200, body: toEndpointView(await changeEndpoint(deps, endpoint, body)) };
  };

  const rollSecretOf: OperationHandler<Api['rollSecret']> = async (request, { actor }) => {
    const { endpoint, secret } = await rollSecret(deps, await ownedEndpoint(deps, request.params.id, actor));
    return { status: 200, body: { ...toEndpointView(endpoint), secret } };
  };

  const remove: OperationHandler<Api['delete']> = async (request, { actor }) => {
    const endpoint = await ownedEndpoint(deps, request.params.id, actor);
    await removeEndpoint(deps, endpoint);
    return { status: 200, body: { id: endpoint.id, deleted: true } };
  };

  const deliveries: OperationHandler<Api['deliveries']> = async (request, { actor }) => {
    const endpoint = await ownedEndpoint(deps, request.params.id, actor);
    const limitText = singleQuery(request.query, 'limit') ?? '20';
    const limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) {
      throw appError('invalid_request', "Query parameter 'limit' must be an integer between 1 and 100.");
    }
    const page = await deliveriesOf(deps, endpoint, limit);
    return { status: 200, body: { data: page.deliveries.map(toDeliveryView), has_more: page.hasMore } };
  };

  const redeliverOne: OperationHandler<Api['redeliver']> = async (request, { actor }) => {
    const endpoint = await ownedEndpoint(deps, request.params.id, actor);
    return {
      status: 202,
      body: toDeliveryView(await redeliver(deps, endpoint, request.params.deliveryId ?? '')),
    };
  };

  return {
    create,
    list,
    get,
    update,
    rollSecret: rollSecretOf,
    delete: remove,
    deliveries,
    redeliver: redeliverOne,
  };
}
