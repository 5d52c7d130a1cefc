import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { appError } from '@mmp/protocol';
import { allowedMethodsOf } from './allowed-methods.js';

export type RateLimitSettings = {
  keyMax: number;
  ipMax: number;
  windowMs: number;
  /** Counters shared by every replica; without it, each instance counts in memory. */
  redis?: Redis;
  nameSpace?: string;
};

/**
 * One budget per API key, provider key or the admin token once the guard has identified
 * the caller (429 rate_limit_exceeded), else per client IP (429 too_many_requests) (`request.ip`, which follows TRUST_PROXY). Every route is
 * counted, unknown ones too: the 404 (or 405, a known path with another method) is
 * rate-limited like any other.
 */
export const rateLimitPlugin = fp<RateLimitSettings>(
  async (app, settings) => {
    await app.register(rateLimit, {
      global: true,
      hook: 'onRequest',
      ...(settings.redis ? { redis: settings.redis, nameSpace: settings.nameSpace } : {}),
      // A counter store that fails (Redis down or slow) lets the request through: fail open.
      skipOnError: true,
      timeWindow: settings.windowMs,
      keyGenerator: (request) => request.rateKey ?? `ip:${request.ip}`,
      max: (_request, key) => (key.startsWith('ip:') ? settings.ipMax : settings.keyMax),
      // A key's budget is the account's rate limit; a caller without one (a payer's browser,
      // a bad key) is counted by address, and too many requests from it in a short period is
      // the specification's other 429.
      errorResponseBuilder: (request, context) => {
        const retry = `retry in ${Math.ceil(context.ttl / 1000)} s.`;
        return request.rateKey
          ? appError('rate_limit_exceeded', `Rate limit exceeded for this key; ${retry}`)
          : appError('too_many_requests', `Too many requests from this address; ${retry}`);
      },
    });
    const allowedMethods = allowedMethodsOf(app.servedRoutes);
    app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request, reply) => {
      const path = request.url.split('?')[0]!;
      const allowed = allowedMethods(path);
      // A route that took the request and found nothing (`callNotFound`) is a 404 as well.
      if (allowed.length === 0 || allowed.includes(request.method)) {
        throw appError('route_not_found', `No route ${request.method} ${path}.`);
      }
      reply.header('allow', allowed.join(', '));
      throw appError(
        'method_not_allowed',
        `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`,
      );
    });
  },
  // Routes read the guard's caller (`rateKey`) before the limiter counts them.
  { name: 'mmp-rate-limit', fastify: '5.x', dependencies: ['mmp-edge', 'mmp-guard'] },
);
