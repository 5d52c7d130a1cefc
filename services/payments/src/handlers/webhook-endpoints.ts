import type { Operation } from '@mmp/platform';
import { secretHint } from '@mmp/platform';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  appError,
  newWebhookSecret,
  parseOrThrow,
  uuid,
  requireActor,
} from '@mmp/protocol';
import { toDeliveryView, toEndpointView, type WebhookEndpoint } from '../domain/webhooks.js';
import {
  findDelivery,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  countEndpoints,
  requestRedelivery,
} from '../store/webhooks.js';
import { singleQuery, type Deps } from './deps.js';
import { checkWebhookUrl } from './webhook-url.js';

const MAX_ENDPOINTS = 16;

const notFound = () => appError('resource_not_found', 'No such webhook endpoint.');

async function ownedEndpoint(
  deps: Deps,
  id: string | undefined,
  scope: { projectId: string; livemode: boolean },
) {
  const endpoint = id ? await findEndpoint(deps.db, id, scope) : null;
  if (!endpoint) throw notFound();
  return endpoint;
}

export function webhookEndpointOperations(deps: Deps): Record<string, Operation> {
  const allowPrivate = deps.settings.webhookAllowPrivateUrls;
  return {
    async 'webhook-endpoints.create'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const body = parseOrThrow(CreateWebhookEndpointBody, request.body ?? {});
      await checkWebhookUrl(body.url, { livemode: merchant.livemode, allowPrivate });
      if ((await countEndpoints(deps.db, merchant)) >= MAX_ENDPOINTS) {
        throw appError(
          'invalid_request',
          `A project may have at most ${MAX_ENDPOINTS} webhook endpoints per environment.`,
        );
      }
      const secret = newWebhookSecret();
      const at = deps.now().toISOString();
      const id = uuid();
      const endpoint: WebhookEndpoint = {
        _id: id,
        id,
        projectId: merchant.projectId,
        livemode: merchant.livemode,
        url: body.url,
        description: body.description ?? null,
        enabledEvents: [...body.enabledEvents],
        status: 'enabled',
        secretSealed: deps.box.seal(secret),
        secretHint: secretHint(secret),
        createdAt: at,
        updatedAt: at,
      };
      await deps.db.endpoints.insertOne(endpoint);
      return { status: 201, body: { ...toEndpointView(endpoint), secret } };
    },

    async 'webhook-endpoints.list'(_request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoints = await listEndpoints(deps.db, merchant);
      return { status: 200, body: { data: endpoints.map(toEndpointView), has_more: false } };
    },

    async 'webhook-endpoints.get'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      return { status: 200, body: toEndpointView(await ownedEndpoint(deps, request.params.id, merchant)) };
    },

    async 'webhook-endpoints.update'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoint = await ownedEndpoint(deps, request.params.id, merchant);
      const body = parseOrThrow(UpdateWebhookEndpointBody, request.body ?? {});
      if (body.url) await checkWebhookUrl(body.url, { livemode: merchant.livemode, allowPrivate });
      const set = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
      const updated = await deps.db.endpoints.findOneAndUpdate(
        { _id: endpoint._id },
        { $set: { ...set, updatedAt: deps.now().toISOString() } },
      );
      if (!updated) throw notFound();
      return { status: 200, body: toEndpointView(updated) };
    },

    async 'webhook-endpoints.roll-secret'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoint = await ownedEndpoint(deps, request.params.id, merchant);
      const secret = newWebhookSecret();
      // Guarded on the secret read: of two rolls at once, the one whose secret is not stored fails.
      const updated = await deps.db.endpoints.findOneAndUpdate(
        { _id: endpoint._id, secretSealed: endpoint.secretSealed },
        {
          $set: {
            secretSealed: deps.box.seal(secret),
            secretHint: secretHint(secret),
            updatedAt: deps.now().toISOString(),
          },
        },
      );
      if (!updated) {
        await ownedEndpoint(deps, endpoint.id, merchant);
        throw appError('invalid_state', 'The secret was rolled by another request meanwhile; roll again.');
      }
      return { status: 200, body: { ...toEndpointView(updated), secret } };
    },

    async 'webhook-endpoints.delete'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoint = await ownedEndpoint(deps, request.params.id, merchant);
      await deps.db.endpoints.deleteMany({ _id: endpoint._id });
      return { status: 200, body: { id: endpoint.id, deleted: true } };
    },

    async 'webhook-endpoints.deliveries'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoint = await ownedEndpoint(deps, request.params.id, merchant);
      const limitText = singleQuery(request.query, 'limit') ?? '20';
      const limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) {
        throw appError('invalid_request', "Query parameter 'limit' must be an integer between 1 and 100.");
      }
      const rows = await listDeliveries(deps.db, endpoint.id, limit + 1);
      return {
        status: 200,
        body: { data: rows.slice(0, limit).map(toDeliveryView), has_more: rows.length > limit },
      };
    },

    async 'webhook-endpoints.redeliver'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const endpoint = await ownedEndpoint(deps, request.params.id, merchant);
      const delivery = await findDelivery(deps.db, endpoint.id, request.params.deliveryId ?? '');
      if (!delivery) throw appError('resource_not_found', 'No such delivery for this webhook endpoint.');
      const queued = await requestRedelivery(deps.db, delivery, deps.now());
      if (!queued)
        throw appError('invalid_state', 'This delivery is being sent right now; try again in a moment.');
      return { status: 202, body: toDeliveryView(queued) };
    },
  };
}
