import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError, newRequestId } from '@mmp/protocol';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact body received, kept for routes whose payload is signed. */
    rawBody?: string;
  }
  interface FastifyContextConfig {
    errorForm?: 'simple' | 'envelope';
    /** Keep the exact body bytes and never refuse it for being malformed JSON. */
    rawBody?: boolean;
    /** An HTML page or asset, or the reference page: no API headers. */
    page?: boolean;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's `X-Request-Id` when it is sane (it ends up in logs and headers), else `req_…`. */
export function requestIdOf(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : newRequestId();
}

const API_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
};
const PAGE_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Request ids on every response, security headers, and a JSON parser that keeps raw bytes where asked. */
export function registerEdge(app: FastifyInstance, options: { https: boolean }): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const page = request.routeOptions.config?.page === true;
    for (const [name, value] of Object.entries(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    if (options.https) reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
    return payload;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const raw = text as string;
    const keepRaw = request.routeOptions.config?.rawBody === true;
    if (keepRaw) request.rawBody = raw;
    if (raw.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(raw));
    } catch {
      // A signed payload is judged by its owner (signature first, then schema), not here.
      if (keepRaw) return done(null, undefined);
      done(appError('invalid_request', 'The body is not valid JSON.'), undefined);
    }
  });
}

export function errorFormOf(request: FastifyRequest): 'simple' | 'envelope' {
  return request.routeOptions.config?.errorForm ?? 'envelope';
}
