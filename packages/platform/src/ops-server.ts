import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
 *
 * Three fixed GET routes need no framework: node:http keeps Fastify out of the services
 * that have no HTTP edge of their own, about 10 MB of each one's idle memory.
 */
export async function startOpsServer(options: {
  service: string;
  host: string;
  port: number;
  registry: Registry;
  checks: Record<string, ReadinessCheck>;
  /** True once a stop began: not ready, whatever the checks say. */
  draining?: () => boolean;
}): Promise<{ port: number; close(): Promise<void> }> {
  async function readiness() {
    const results = await Promise.all(
      Object.entries(options.checks).map(
        async ([name, check]) => [name, await check().catch(() => false)] as const,
      ),
    );
    const draining = options.draining?.() ?? false;
    const ready = !draining && results.every(([, ok]) => ok);
    return {
      status: ready ? 200 : 503,
      body: {
        status: draining ? 'draining' : ready ? 'ready' : 'not_ready',
        service: options.service,
        checks: Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'failing'])),
      },
    };
  }

  async function answer(request: IncomingMessage): Promise<{ status: number; type?: string; body: unknown }> {
    const path = (request.url ?? '/').split('?')[0];
    const known = (Object.values(OPS_PATHS) as string[]).includes(path ?? '');
    if (!known) return { status: 404, body: { error: 'not_found', path } };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return { status: 405, body: { error: 'method_not_allowed' } };
    if (path === OPS_PATHS.liveness) return { status: 200, body: { status: 'ok', service: options.service } };
    if (path === OPS_PATHS.readiness) return readiness();
    return { status: 200, type: options.registry.contentType, body: await options.registry.metrics() };
  }

  function send(
    response: ServerResponse,
    { status, type, body }: { status: number; type?: string; body: unknown },
  ) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, {
      'content-type': type ?? 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  }

  const server = createServer((request, response) => {
    request.resume();
    answer(request).then(
      (result) => send(response, result),
      () => send(response, { status: 500, body: { error: 'internal_error' } }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
