import { outboundUrlRefusal, rollSealedSecret, secretHint } from '@mmp/platform';
import {
  appError,
  newWebhookSecret,
  uuid,
  type CreateWebhookEndpointBody,
  type UpdateWebhookEndpointBody,
} from '@mmp/protocol';
import type { WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';
import {
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  requestRedelivery,
  updateEndpoint,
} from '../store/webhooks.js';
import type { Scope } from '../store/payments.js';
import type { Deps } from '../deps.js';

const MAX_ENDPOINTS = 16;

/** What a merchant reads when an endpoint URL is refused, by the platform's reason. */
const URL_RULES: Record<string, string> = {
  'not a URL': 'must be a URL',
  'credentials in the URL': 'must not contain credentials',
  'not https': 'must use https',
  'private address': 'must not be a private, loopback or link-local address',
};

/**
 * The live rule in both environments: https to a public address, so no key can make the
 * service call into its own network (a test key included). A name is judged again each time
 * it is called, when the connection is made. The development switch opens loopback only.
 */
function checkEndpointUrl(deps: Deps, url: string): void {
  const refusal = outboundUrlRefusal(url, { allowLoopback: deps.settings.allowLoopback });
  if (!refusal) return;
  const message = URL_RULES[refusal] ?? refusal;
  throw appError('validation_error', 'Invalid field: url.', [{ field: 'url', message }]);
}

const notFound = () => appError('resource_not_found', 'No such webhook endpoint.');

export async function ownedEndpoint(deps: Deps, id: string | undefined, scope: Scope) {
  const endpoint = id ? await findEndpoint(deps.db, id, scope) : null;
  if (!endpoint) throw notFound();
  return endpoint;
}

/** A new endpoint and its signing secret, which only this answer shows. */
export async function createEndpoint(
  deps: Deps,
  scope: Scope,
  body: CreateWebhookEndpointBody,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  checkEndpointUrl(deps, body.url);
  if ((await countEndpoints(deps.db, scope)) >= MAX_ENDPOINTS) {
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
    projectId: scope.projectId,
    livemode: scope.livemode,
    url: body.url,
    description: body.description ?? null,
    enabledEvents: [...body.enabledEvents],
    status: 'enabled',
    secretSealed: deps.box.seal(secret),
    secretHint: secretHint(secret),
    createdAt: at,
    updatedAt: at,
  };
  await insertEndpoint(deps.db, endpoint);
  return { endpoint, secret };
}

export async function changeEndpoint(
  deps: Deps,
  endpoint: WebhookEndpoint,
  body: UpdateWebhookEndpointBody,
): Promise<WebhookEndpoint> {
  if (body.url) checkEndpointUrl(deps, body.url);
  const set = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  const updated = await updateEndpoint(deps.db, endpoint, { ...set, updatedAt: deps.now().toISOString() });
  if (!updated) throw notFound();
  return updated;
}

/** Replaces the secret at once; of two rolls at once, only one answers (the one stored). */
export async function rollSecret(
  deps: Deps,
  endpoint: WebhookEndpoint,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  const updated = await rollSealedSecret(
    deps.db.endpoints,
    endpoint,
    { sealed: 'secretSealed', hint: 'secretHint' },
    { secret, box: deps.box, at: deps.now().toISOString() },
  );
  if (updated) return { endpoint: updated, secret };
  if (!(await findEndpoint(deps.db, endpoint.id))) throw notFound();
  throw appError('invalid_state', 'The secret was rolled by another request meanwhile; roll again.');
}

export async function removeEndpoint(deps: Deps, endpoint: WebhookEndpoint): Promise<void> {
  await deleteEndpoint(deps.db, endpoint);
}

/** The endpoint's deliveries, newest first, and whether there are more. */
export async function deliveriesOf(deps: Deps, endpoint: WebhookEndpoint, limit: number) {
  const rows = await listDeliveries(deps.db, endpoint.id, limit + 1);
  return { deliveries: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Queues one more attempt of a delivery now; refused while it is being sent. */
export async function redeliver(
  deps: Deps,
  endpoint: WebhookEndpoint,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const delivery = await deps.db.deliveries.findOne({ id: deliveryId, endpointId: endpoint.id });
  if (!delivery) throw appError('resource_not_found', 'No such delivery for this webhook endpoint.');
  const queued = await requestRedelivery(deps.db, delivery, deps.now());
  if (!queued)
    throw appError('invalid_state', 'This delivery is being sent right now; try again in a moment.');
  return queued;
}
