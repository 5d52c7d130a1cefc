import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import type { DocumentedRoute } from '../routes/route.js';
import { buildOpenApiDocument } from './openapi.js';
import { healthRoute } from './health.js';

export const openApiRoute: DocumentedRoute = {
  method: 'GET',
  url: '/v1/openapi.json',
  auth: 'public',
  errorForm: 'envelope',
  tag: 'System',
  summary: 'This document',
  responses: {
    200: z.looseObject({ openapi: z.literal('3.1.0'), paths: z.record(z.string(), z.unknown()) }),
  },
};

/**
 * The reference page's own policy: scripts, fonts, images and calls from this origin only
 * (none from the network, no validator badge); styles may be inline, since Swagger UI sets
 * element styles as it renders, which a stricter policy blocks with console errors. The page
 * holds no secret and runs no inline script.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

type DocsOptions = { routes: DocumentedRoute[]; publicUrl: string };

const docs: FastifyPluginAsync<DocsOptions> = async (app, { routes, publicUrl }) => {
  // Filled on the first request of this plugin's routes (the document, the reference page and
  // its assets), not at start: the document is 460 kB of JSON, 1.2 MB of heap and 35 ms of
  // start-up that a gateway whose reference nobody reads spent for nothing. Swagger's static
  // mode keeps this very object, so the page serves what the hook filled.
  const document: Record<string, unknown> = {};
  app.addHook('onRequest', async () => {
    if (Object.keys(document).length > 0) return;
    Object.assign(document, buildOpenApiDocument([healthRoute, openApiRoute, ...routes], publicUrl));
  });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(async (reference) => {
    reference.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), page: true };
    });
    await reference.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_CONTENT_SECURITY_POLICY,
      uiConfig: { validatorUrl: null } as never,
    });
  });
  // The document is already JSON-shaped data: sent as it is rather than walked by a serializer.
  app.get(openApiRoute.url, async () => document);
};

/** The OpenAPI document of every route (`/v1/openapi.json`) and its reference page (`/docs`). */
export const docsPlugin = fp(docs, {
  name: 'mmp-docs',
  fastify: '5.x',
  dependencies: ['mmp-edge'],
  encapsulate: true,
});
