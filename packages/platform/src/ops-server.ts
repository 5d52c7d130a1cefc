import Fastify, { type FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';

export type ReadinessCheck = () => Promise<boolean>;

/**
 * /healthz (the process runs), /readyz (its dependencies answer) and /metrics
 * (Prometheus text) on a port of their own, so Kubernetes probes never compete with
 * traffic and never need the gateway.
 */
export async function startOpsServer(options: {
  service: string;
  host: string;
  port: number;
  registry: Registry;
  checks: Record<string, ReadinessCheck>;
}): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok', service: options.service }));
  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not_ready',
      service: options.service,
      checks: Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'failing'])),
    });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(options.registry.contentType).send(await options.registry.metrics()),
  );
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address ? address.port : options.port };
}

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
