import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { schemaController } from './schema-controller.js';

/**
 * Swagger UI over `document`, as an app of its own that the gateway asks (`inject`) for
 * each `/docs` request. Built on the first such request, in a module the gateway imports
 * then: Swagger UI with @fastify/static, send and yaml is some 120 modules, 3 MB of an
 * idle gateway's memory that most deployments never use. Swagger's static mode keeps the
 * very object it is given, so the page serves the document as the gateway fills it.
 */
export async function buildReferencePage(
  document: Record<string, unknown>,
  contentSecurityPolicy: string,
): Promise<FastifyInstance> {
  const page = Fastify({ exposeHeadRoutes: false, schemaController });
  await page.register(swagger, { mode: 'static', specification: { document: document as never } });
  await page.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: contentSecurityPolicy,
    uiConfig: { validatorUrl: null } as never,
  });
  await page.ready();
  return page;
}
