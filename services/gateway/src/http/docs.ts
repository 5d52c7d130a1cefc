import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

/** Builds the app that serves the reference page over the document it is given. */
export type ReferencePageBuilder = (document: Record<string, unknown>) => Promise<FastifyInstance>;

const swaggerUiPage: ReferencePageBuilder = async (document) =>
  (await import('./reference-page.js')).buildReferencePage(document, DOCS_CONTENT_SECURITY_POLICY);

type DocsOptions = { routes: DocumentedRoute[]; publicUrl: string; referencePage?: ReferencePageBuilder };

/** Headers about the page app's own connection to its caller (`inject`), not the reply. */
const CONNECTION_HEADERS = new Set(['connection', 'date', 'keep-alive', 'transfer-encoding']);

const docs: FastifyPluginAsync<DocsOptions> = async (
  app,
  { routes, publicUrl, referencePage: build = swaggerUiPage },
) => {
  // Filled on the first request of this plugin's routes (the document, the reference page and
  // its assets), not at start: the document is 460 kB of JSON, 1.2 MB of heap and 35 ms of
  // start-up that a gateway whose reference nobody reads spent for nothing.
  const document: Record<string, unknown> = {};
  app.addHook('onRequest', async () => {
    if (Object.keys(document).length > 0) return;
    Object.assign(document, buildOpenApiDocument([healthRoute, openApiRoute, ...routes], publicUrl));
  });
  let page: Promise<FastifyInstance> | undefined;
  const referencePage = () =>
    (page ??= build(document).catch((error: unknown) => {
      page = undefined;
      throw error;
    }));
  // The gateway's own route, guard and rate limit, the page app's answer: its status,
  // headers (an ETag, a 304) and bytes. A HEAD is asked as its GET, and Fastify drops the
  // body; a path the page does not know is the gateway's own 404, and its failure the
  // gateway's own 500, logged.
  const servePage = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await (
      await referencePage()
    ).inject({ method: 'GET', url: request.url, headers: request.headers });
    if (answer.statusCode === 404) return reply.callNotFound();
    if (answer.statusCode >= 500)
      throw new Error(`the reference page answered ${answer.statusCode}: ${answer.body.slice(0, 200)}`);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !CONNECTION_HEADERS.has(name)) reply.header(name, value);
    }
    // An empty Buffer would go out typed as octet-stream (a redirect, a 304).
    return reply.code(answer.statusCode).send(answer.rawPayload.length > 0 ? answer.rawPayload : undefined);
  };
  for (const url of ['/docs', '/docs/*']) app.get(url, { config: { page: true } }, servePage);
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
