import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export type ReadinessCheck = () => Promise<boolean>;

/** The ops server's paths, which the Kubernetes probes and Prometheus' scrape use. */
export const OPS_PATHS = { liveness: '/healthz', readiness: '/readyz', metrics: '/metrics' } as const;

/**
 * /healthz, /readyz and /metrics (Prometheus text) on a port of their own, so Kubernetes
 * probes never compete with traffic and never need the gateway.
 *
 * - /healthz (liveness) says only that the process answers; it stays 200 while NATS or the
 *   store are away and while draining, so Kubernetes never restarts a pod for a dependency
 *   outage or in the middle of a graceful stop.
 * - /readyz (readiness) is 200 only when every check passes (NATS connected, store
 *   reachable, consumers running, the service's own) and the service is not draining, so
 *   traffic goes elsewhere meanwhile and comes back by itself.
 */
export async function startOpsServer(options: {
  service: string;
  host: string;
  port: number;
  registry: Registry;
  checks: Record<string, ReadinessCheck>;
  /** True once a stop began: not ready, whatever the checks say. */
  draining?: () => boolean;
}): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ logger: false });
  app.get(OPS_PATHS.liveness, async () => ({ status: 'ok', service: options.service }));
  app.get(OPS_PATHS.readiness, async (_request, reply) => {
    const results = await Promise.all(
      Object.entries(options.checks).map(
        async ([name, check]) => [name, await check().catch(() => false)] as const,
      ),
    );
    const draining = options.draining?.() ?? false;
    const ready = !draining && results.every(([, ok]) => ok);
    return reply.code(ready ? 200 : 503).send({
      status: draining ? 'draining' : ready ? 'ready' : 'not_ready',
      service: options.service,
      checks: Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'failing'])),
    });
  });
  app.get(OPS_PATHS.metrics, async (_request, reply) =>
    reply.type(options.registry.contentType).send(await options.registry.metrics()),
  );
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address ? address.port : options.port };
}
