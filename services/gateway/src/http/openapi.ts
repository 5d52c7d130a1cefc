import { z } from 'zod';
import { EnvelopeErrorBody, PUBLISHABLE_SAFE_SCOPES, SCOPES, SimpleErrorBody } from '@mmp/protocol';
import type { DocumentedRoute } from '../routes/route.js';
import { audienceOf, httpStatus } from './errors.js';
import { jsonSchema, type JsonSchema } from './schemas.js';

/** `/v1/payments/:token` → `/v1/payments/{token}` */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || (object.required ?? []).includes(name),
      schema: propertySchema,
      ...(typeof description === 'string' ? { description } : {}),
    };
  });
}

function pathParameters(route: DocumentedRoute): JsonSchema[] {
  const declared = parameters(route.schema?.params, 'path');
  const names = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  // Every templated segment must be declared, even when the route file gave no schema for it.
  return names.map(
    (name) =>
      declared.find((p) => p.name === name) ?? {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      },
  );
}

function security(route: DocumentedRoute): Record<string, string[]>[] {
  switch (route.auth) {
    case 'public':
    case 'signed':
      return [];
    case 'admin':
      return [{ adminToken: [] }];
    case 'provider':
      return [{ providerKey: [] }];
    case 'merchant': {
      const scopes = route.scope ? [route.scope] : [];
      const publishable = route.scope && PUBLISHABLE_SAFE_SCOPES.includes(route.scope);
      return publishable ? [{ secretKey: scopes }, { publishableKey: scopes }] : [{ secretKey: scopes }];
    }
  }
}

/** 422 only where the provider protocol is validated; elsewhere validation is 400 (errors.ts). */
const ERROR_STATUSES: Record<DocumentedRoute['auth'], string[]> = {
  merchant: ['400', '401', '403', '404', '429', '503'],
  provider: ['400', '401', '404', '422', '429', '503'],
  admin: ['400', '401', '404', '429', '503'],
  public: ['400', '404', '429', '503'],
  signed: ['400', '403', '409', '413', '415', '422', '429', '503'],
};

/** What each error status means to the caller; the body's `code` says which case it is. */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400':
    'Bad request: `validation_error` with `errors` listing every invalid field, `invalid_request` (malformed JSON, bad query), or a specific code (`invalid_amount`, `invalid_currency`, `missing_required_field`, `invalid_email`)',
  '401': 'Missing, invalid or expired key: `invalid_api_key`, `expired_api_key`',
  '403': 'Not allowed: `insufficient_permissions`, `service_suspended`, `signature_invalid`',
  '404': 'No such resource or route',
  '409': '`idempotency_conflict`, `invalid_state` or `duplicate_event`',
  '413': 'Body too large',
  '415': 'Body not application/json',
  '422': 'Protocol validation: `validation_error` with `errors` listing every invalid field',
  '429': '`rate_limit_exceeded` or `too_many_requests`; wait for `Retry-After`',
  '503': 'A service it needs is unavailable; retry with backoff',
};

const IDEMPOTENCY_KEY: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Up to 255 characters. A retry with the same key and request within 24 h gets the first answer again (Idempotent-Replayed: true); another request with the key is 409 idempotency_conflict. Errors are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const REQUEST_ID: JsonSchema = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Your trace id (letters, digits, -_.:, up to 128); otherwise one is made (req_…). Echoed on every response and in error bodies; quote it to support.',
  schema: { type: 'string', maxLength: 128 },
};

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function operation(route: DocumentedRoute): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  const requestIdHeader = {
    'X-Request-Id': { description: 'The request id', schema: { type: 'string' } },
  };
  for (const [status, schema] of Object.entries(route.responses ?? { 200: z.unknown() })) {
    responses[status] = {
      description: 'Success',
      headers: requestIdHeader,
      content: { 'application/json': { schema: jsonSchema(schema, 'output') } },
    };
  }
  const errorRef = {
    $ref: `#/components/schemas/${route.errorForm === 'simple' ? 'SimpleError' : 'EnvelopeError'}`,
  };
  const idempotent = route.method === 'POST' && route.auth !== 'signed';
  const statuses = new Set([
    ...ERROR_STATUSES[route.auth],
    ...(idempotent ? ['409'] : []),
    // Any body may be too large (413) or not JSON (415).
    ...(WITH_BODY.has(route.method) ? ['413', '415'] : []),
    // What the operation itself may answer (409 rail_has_open_orders on a DELETE, say).
    ...(route.errors ?? []).map((code) => String(httpStatus(code, audienceOf(route)))),
  ]);
  for (const status of [...statuses].sort()) {
    responses[status] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      headers: requestIdHeader,
      content: { 'application/json': { schema: errorRef } },
    };
  }
  const body = route.schema?.body;
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method.toLowerCase()}${openApiPath(route.url).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    security: security(route),
    parameters: [
      ...pathParameters(route),
      ...parameters(route.schema?.query, 'query'),
      ...(idempotent ? [IDEMPOTENCY_KEY] : []),
      REQUEST_ID,
    ],
    ...(body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

const scopeList = Object.entries(SCOPES)
  .map(([scope, meaning]) => `\`${scope}\` ${meaning}`)
  .join('; ');

/**
 * The reference's groups in reading order: what a merchant integrates first, then what a
 * provider wires, then the operator's routes. A route's tag missing here still shows, last.
 */
const TAGS: { name: string; description: string }[] = [
  {
    name: 'Payments',
    description: 'Create payments, send the payer to `paymentUrl`, then read, verify or cancel them.',
  },
  {
    name: 'Checkout',
    description:
      'Checkout sessions: the hosted payment page and the calls it makes (public ones need no key).',
  },
  {
    name: 'Payment links',
    description: 'Reusable links to a hosted page, fixed or variable amount, with the fields they collect.',
  },
  { name: 'Customers', description: 'Customer profiles built from payments that carry a `customerId`.' },
  {
    name: 'Webhook endpoints',
    description: 'Where signed `transaction.*` events go, their secrets and their deliveries.',
  },
  {
    name: 'Refunds',
    description: 'Send a completed payment back to its payer, in full or in parts, never more than it was.',
  },
  {
    name: 'Payouts',
    description: 'Send money to a phone number from the available balance, through payout-capable rails.',
  },
  { name: 'Balance', description: 'What a project may send out, per currency and environment.' },
  {
    name: 'Provider portal',
    description: 'A provider’s rails (create, test, activate) and its protocol schema, with its `sk_` key.',
  },
  {
    name: 'Provider certification',
    description:
      'Certification runs of a sandbox rail: start, follow live (Server-Sent Events), read each case’s evidence, re-run a case, reports as JSON and JUnit XML. A passing full run certifies the channel.',
  },
  {
    name: 'Provider orders',
    description: 'The pull transport: fetch `payment.execute` orders and ack them.',
  },
  {
    name: 'Provider settlements',
    description: 'Signed SettlementEvents (or mapped proprietary payloads) from providers.',
  },
  { name: 'Admin: projects', description: 'Operator: projects and their keys, shown once.' },
  { name: 'Admin: keys', description: 'Operator: create, roll and revoke a project’s keys.' },
  { name: 'Admin: webhook endpoints', description: 'Operator: a project’s webhook endpoints.' },
  { name: 'Admin: providers', description: 'Operator: providers, their keys, signing secrets and mappings.' },
  {
    name: 'Admin: reconciliation',
    description: 'Operator: a provider’s day of orders against its settlements.',
  },
  { name: 'Admin', description: 'Operator: maintenance.' },
  { name: 'System', description: 'Health and this document.' },
];

function orderedTags(routes: DocumentedRoute[]): { name: string; description?: string }[] {
  const known = new Set(TAGS.map((tag) => tag.name));
  const others = [...new Set(routes.map((route) => route.tag))].filter((tag) => !known.has(tag));
  return [...TAGS, ...others.map((name) => ({ name }))];
}

/** The OpenAPI 3.1 document of every non-page route, built from the routes' own zod schemas. */
export function buildOpenApiDocument(routes: DocumentedRoute[], publicUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes.filter((r) => !r.page)) {
    const path = (paths[openApiPath(route.url)] ??= {});
    path[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mobile Money Payments API',
      version: '2024-01',
      description:
        'Non-custodial Mobile Money payments for Central and West Africa. Keys prefixed `svc_test_` act on sandbox data, `svc_live_` on production data.',
    },
    servers: [{ url: publicUrl }],
    tags: orderedTags(routes.filter((route) => !route.page)),
    paths,
    components: {
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description: `Secret key svc_{test,live}_sk_… Scopes: ${scopeList}.`,
        },
        publishableKey: {
          type: 'http',
          scheme: 'bearer',
          description: `Publishable key svc_{test,live}_pk_…, safe in client code; only ${PUBLISHABLE_SAFE_SCOPES.join(', ')}.`,
        },
        providerKey: { type: 'http', scheme: 'bearer', description: 'Provider API key sk_…' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN' },
      },
      schemas: {
        SimpleError: jsonSchema(SimpleErrorBody, 'output'),
        EnvelopeError: jsonSchema(EnvelopeErrorBody, 'output'),
      },
    },
  };
}
