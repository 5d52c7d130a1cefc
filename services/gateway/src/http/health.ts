import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { SERVICE_NAMES, pingOperation } from '@mmp/protocol';
import type { BusClient } from '@mmp/platform';
import type { DocumentedRoute } from '../routes/route.js';
import { replySerializersOf, serializeByStatus } from './reply-serializers.js';

const Health = z.object({
  status: z.enum(['ok', 'degraded']),
  services: z.record(z.string(), z.enum(['ok', 'unavailable'])),
});

export const healthRoute: DocumentedRoute = {
  method: 'GET',
  url: '/v1/health',
  auth: 'public',
  errorForm: 'envelope',
  tag: 'System',
  summary: 'Whether every service answers',
  responses: { 200: Health, 503: Health },
};

const health: FastifyPluginAsync<{ bus: BusClient; timeoutMs: number }> = async (app, { bus, timeoutMs }) => {
  // Not rate-limited: start scripts and probes poll it, and each call costs a few NATS pings.
  app.get(
    healthRoute.url,
    {
      config: { rateLimit: false, replySerializers: replySerializersOf(healthRoute) },
      preSerialization: [serializeByStatus],
    },
    async (request, reply) => {
      const entries = await Promise.all(
        SERVICE_NAMES.map(async (name) => {
          if (name === 'gateway') return [name, 'ok'] as const;
          try {
            await bus.request(pingOperation(name), {}, { requestId: request.id, timeoutMs });
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
    },
  );
};

/** `GET /v1/health`: every service answers its ping within `timeoutMs`, or the system is not ok. */
export const healthPlugin = fp(health, {
  name: 'mmp-health',
  fastify: '5.x',
  dependencies: ['mmp-edge'],
  encapsulate: true,
});
