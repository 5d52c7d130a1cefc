import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiPath } from '../src/http/openapi.js';
import { forwardedRoutes } from '../src/routes/index.js';
import { documented } from '../src/routes/route.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

let gw: TestGateway;
let document: {
  openapi: string;
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, { security: unknown[]; tags: string[] }>>;
};

beforeAll(async () => {
  gw = await startTestGateway({ routes: forwardedRoutes, label: 'gwdoc' });
  const response = await gw.http('GET', '/v1/openapi.json');
  expect(response.status).toBe(200);
  document = response.json as typeof document;
});

afterAll(async () => {
  await gw?.stop();
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('covers every route the gateway serves, except pages and the reference page', () => {
    const served = gw.app.servedRoutes.filter(
      (route) => !route.page && route.method !== 'HEAD' && !route.url.startsWith('/docs'),
    );
    expect(served.length).toBeGreaterThan(15);
    const missing = served.filter(
      (route) => !document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()],
    );
    expect(missing).toEqual([]);
  });

  it('groups the reference for merchants first, then providers, then the operator, each group described', () => {
    const names = document.tags.map((tag) => tag.name);
    expect(names.slice(0, 5)).toEqual([
      'Payments',
      'Checkout',
      'Payment links',
      'Customers',
      'Webhook endpoints',
    ]);
    expect(names.indexOf('Provider portal')).toBeLessThan(names.indexOf('Admin: projects'));
    const used = new Set(
      Object.values(document.paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags)),
    );
    expect([...used].filter((tag) => !names.includes(tag))).toEqual([]);
    expect(document.tags.filter((tag) => !tag.description)).toEqual([]);
  });

  it('documents the headers every caller relies on: Idempotency-Key on POSTs, X-Request-Id, 413/415 on bodies', () => {
    type Operation = { parameters: { name: string }[]; responses: Record<string, unknown> };
    const paths = document.paths as unknown as Record<string, Record<string, Operation>>;
    const create = paths['/v1/payments']!.post!;
    expect(create.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['Idempotency-Key', 'X-Request-Id']),
    );
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['201', '400', '409', '413', '415']),
    );
    // Validation is 400 for merchants; 422 stays for the provider protocol.
    expect(Object.keys(create.responses)).not.toContain('422');
    const settlement = paths['/v1/provider/webhooks/{providerId}']!.post!;
    expect(settlement.parameters.map((p) => p.name)).not.toContain('Idempotency-Key');
    expect(Object.keys(settlement.responses)).toContain('422');
    for (const operations of Object.values(paths)) {
      for (const operation of Object.values(operations)) {
        expect(operation.parameters.map((p) => p.name)).toContain('X-Request-Id');
      }
    }
  });

  it("documents a provider's rail self-service: the change it may send, and each operation's own errors", () => {
    type Operation = {
      requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      responses: Record<string, unknown>;
    };
    const paths = document.paths as unknown as Record<string, Record<string, Operation>>;
    const rail = paths['/v1/provider/rails/{railId}']!;
    const update = rail.patch!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(update.properties ?? {}).sort()).toEqual(['endpoint', 'priority', 'supportsPayout']);
    expect(Object.keys(rail.patch!.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '422']));
    expect(Object.keys(rail.delete!.responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    for (const action of ['disable', 'enable'])
      expect(Object.keys(paths[`/v1/provider/rails/{railId}/${action}`]!.post!.responses)).toContain('404');
    expect(paths['/v1/admin/providers/{providerId}/rails/{railId}']!.delete).toBeDefined();
  });

  it('types the success answer of every operation', () => {
    type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
    const paths = document.paths as unknown as Record<string, Record<string, Operation>>;
    const untyped: string[] = [];
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        const empty = success.some(
          ([, r]) => Object.keys(r.content?.['application/json']?.schema ?? {}).length === 0,
        );
        if (empty) untyped.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('documents the security of each route and gives every merchant route a scope', () => {
    for (const route of forwardedRoutes.map(documented).filter((r) => !r.page)) {
      const operation = document.paths[openApiPath(route.url)]![route.method.toLowerCase()]!;
      if (route.auth === 'merchant') {
        expect(route.scope, `${route.method} ${route.url}`).toBeDefined();
        expect(operation.security).toContainEqual({ secretKey: [route.scope] });
      }
      if (route.auth === 'public' || route.auth === 'signed') expect(operation.security).toEqual([]);
    }
  });

  it('serves a readable reference page locally', async () => {
    const response = await gw.http('GET', '/docs/');
    expect(response.status).toBe(200);
    const html = response.text;
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z0-9.-]+\.(com|net|org|io)\/[^"']*\.(js|css)/);
    // Its own policy: nothing from the network, no inline script (the browser test runs it).
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toMatch(/https:|validator\.swagger\.io|unsafe-eval/);
  });
});

describe('the reference page’s assets', () => {
  it('are not routes of the gateway: its two /docs routes ask the page, built on first use', () => {
    const docs = gw.app.servedRoutes.filter((route) => route.url.startsWith('/docs'));
    expect(docs.map((route) => `${route.method} ${route.url}`).sort()).toEqual([
      'GET /docs',
      'GET /docs/*',
      'HEAD /docs',
      'HEAD /docs/*',
    ]);
    expect(docs.every((route) => route.page)).toBe(true);
  });

  it('are served whole, with their type, length and cache validator, and a HEAD answers the same headers', async () => {
    const asset = await gw.http('GET', '/docs/static/swagger-ui.css');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(Number(asset.headers.get('content-length'))).toBe(Buffer.byteLength(asset.text));
    expect(asset.text).toContain('.swagger-ui');
    expect(asset.headers.get('x-request-id')).toBeTruthy();
    const head = await gw.http('HEAD', '/docs/static/swagger-ui.css');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(asset.headers.get('content-length'));
    expect(head.text).toBe('');
    const etag = asset.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await gw.http('GET', '/docs/static/swagger-ui.css', {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('answer an unknown asset with the gateway’s own 404', async () => {
    const missing = await gw.http('GET', '/docs/static/nothing-here.js');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('route_not_found');
    expect(missing.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('the reference page of a gateway that has not built its document yet', () => {
  it('serves the whole document as its JSON and its YAML, the same as /v1/openapi.json', async () => {
    const fresh = await startTestGateway({ routes: forwardedRoutes, label: 'gwdocfresh' });
    try {
      const json = await fresh.http('GET', '/docs/json');
      expect(json.status).toBe(200);
      expect(json.json).toEqual(document);
      const yaml = await fresh.http('GET', '/docs/yaml');
      expect(yaml.status).toBe(200);
      expect(yaml.text).toContain('/v1/payments/{token}:');
      expect((await fresh.http('GET', '/v1/openapi.json')).json).toEqual(document);
    } finally {
      await fresh.stop();
    }
  });
});
