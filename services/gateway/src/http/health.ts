import type { FastifyInstance } from 'fastify';
import { SERVICE_NAMES } from '@mmp/protocol';
import type { ServiceClient } from '@mmp/platform';

/** `GET /v1/health`: every service answers its ping within `timeoutMs`, or the system is not ok. */
export function registerHealth(
  app: FastifyInstance,
  deps: { services: ServiceClient; timeoutMs: number },
): void {
  // Not rate-limited: start scripts and probes poll it, and each call costs a few NATS pings.
  app.get('/v1/health', { config: { rateLimit: false } }, async (request, reply) => {
    const entries = await Promise.all(
      SERVICE_NAMES.map(async (name) => {
        if (name === 'gateway') return [name, 'ok'] as const;
        try {
          await deps.services.call(name, 'ping', {}, { requestId: request.id, timeoutMs: deps.timeoutMs });
          return [name, 'ok'] as const;
        } catch {
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const ok = entries.every(([, state]) => state === 'ok');
    return reply
      .code(ok ? 200 : 503)
      .send({ status: ok ? 'ok' : 'degraded', services: Object.fromEntries(entries) });
  });
}
