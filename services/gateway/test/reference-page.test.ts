import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { docsPlugin, type ReferencePageBuilder } from '../src/http/docs.js';
import { edgePlugin } from '../src/http/edge.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The gateway's edge with its reference, over a page app the test makes. */
async function gatewayWith(referencePage: ReferencePageBuilder) {
  const app = Fastify();
  apps.push(app);
  await app.register(edgePlugin, { https: false });
  await app.register(docsPlugin, { routes: [], publicUrl: 'http://127.0.0.1:3000', referencePage });
  return app;
}

function pageApp(status: number, body: string) {
  const page = Fastify();
  apps.push(page);
  page.get('/docs/*', async (_request, reply) => reply.code(status).type('text/plain').send(body));
  return page;
}

describe('the reference page, when it cannot be served', () => {
  it('answers the gateway’s own 500 when the page fails, and builds the page again on the next request', async () => {
    let builds = 0;
    const app = await gatewayWith(async () => {
      builds += 1;
      if (builds === 1) throw new Error('Swagger UI could not be loaded');
      return pageApp(200, 'the page');
    });
    const failed = await app.inject('/docs/index.css');
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    expect(failed.headers['x-request-id']).toBeTruthy();
    const served = await app.inject('/docs/index.css');
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe('the page');
    expect(builds).toBe(2);
  });

  it('answers a failure of the page app in the gateway’s error form, without the page’s own body', async () => {
    const app = await gatewayWith(async () => pageApp(503, 'stack trace of the page app'));
    const failed = await app.inject('/docs/index.css');
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    expect(failed.body).not.toContain('stack trace');
  });
});
