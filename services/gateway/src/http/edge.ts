import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { appError, newRequestId, type AppError } from '@mmp/protocol';
import { shapeError, toAppError, type ErrorAudience } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact body received, kept for routes whose payload is signed. */
    rawBody?: string;
  }
  interface FastifyContextConfig {
    errorForm?: 'simple' | 'envelope';
    /** Whose requests the route answers; decides the status of validation_error (errors.ts). */
    audience?: ErrorAudience;
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

const HSTS = 'max-age=63072000; includeSubDomains';

/** The headers of every API answer: its request id and the security headers. */
function apiHeaders(requestId: string, https: boolean): Record<string, string> {
  return {
    'x-request-id': requestId,
    ...API_SECURITY_HEADERS,
    ...(https ? { 'strict-transport-security': HSTS } : {}),
  };
}

/**
 * A URL Fastify cannot route (a path segment past the router's limit, broken
 * percent-encoding) is answered before any hook runs: here, in the envelope form, with the
 * headers every answer carries.
 */
export function frameworkErrors(https: boolean): FastifyServerOptions['frameworkErrors'] {
  return (error, request, reply) => {
    const known =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? appError('resource_not_found', 'No such resource.')
        : appError('invalid_request', 'The URL is malformed.');
    const { status, body } = shapeError(known, 'envelope', request.id);
    void (reply as FastifyReply)
      .code(status)
      .headers(apiHeaders(request.id, https))
      .type('application/json; charset=utf-8')
      .send(body);
  };
}

/** No request body needs more; a deeper one could only exhaust the stack of whoever walks it. */
export const MAX_JSON_DEPTH = 64;

/** How deeply a JSON text nests arrays and objects, read without recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** A body the guarded parser refused: poisoned (valid JSON, refused all the same) or not JSON. */
function refusedBody(text: string): AppError {
  try {
    JSON.parse(text);
  } catch {
    return appError('invalid_request', 'The body is not valid JSON.');
  }
  return appError(
    'invalid_request',
    'The body holds a __proto__ or constructor.prototype key, which no request may carry.',
  );
}

/**
 * JSON bodies through Fastify's own parser, which refuses `__proto__` and
 * `constructor.prototype` keys (prototype poisoning), after a depth check. Routes whose
 * payload is signed keep the exact text instead, unparsed: the service that judges it
 * verifies the signature over those bytes first and parses them after, so even a body the
 * edge would refuse reaches it (signature first, then schema), and it crosses the bus once.
 */
function registerJsonParser(app: FastifyInstance): void {
  const guardedParse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const raw = text as string;
    if (request.routeOptions.config?.rawBody === true) {
      request.rawBody = raw;
      return done(null, undefined);
    }
    if (raw.trim() === '') return done(null, undefined);
    if (jsonDepth(raw) > MAX_JSON_DEPTH) {
      return done(
        appError('invalid_request', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`),
        undefined,
      );
    }
    guardedParse(request, raw, (error, body) => {
      if (!error) return done(null, body);
      done(refusedBody(raw), undefined);
    });
  });
}

/**
 * What every request meets at the edge: its id on the response, security headers, one
 * access line, the guarded JSON parser, and errors shaped in the route's form.
 */
export const edgePlugin = fp<{ https: boolean }>(
  async (app, options) => {
    app.decorateRequest('rawBody', undefined);
    // Callback hooks, not async ones: Fastify waits on an async hook's promise in a
    // microtask of its own, for each of these on every request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
    // One line per request. Successful reads go at debug: a pull provider polling every second
    // or a page polling its status would otherwise drown the changes and failures worth reading.
    app.addHook('onResponse', (request, reply, done) => {
      const quiet = (request.method === 'GET' || request.method === 'HEAD') && reply.statusCode < 400;
      request.log[quiet ? 'debug' : 'info'](
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          path: request.url.split('?')[0],
          statusCode: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request completed',
      );
      done();
    });
    const pageHeaders = Object.entries(PAGE_SECURITY_HEADERS);
    const apiHeaders = Object.entries(API_SECURITY_HEADERS);
    app.addHook('onSend', (request, reply, payload, done) => {
      for (const [name, value] of request.routeOptions.config?.page === true ? pageHeaders : apiHeaders) {
        if (!reply.hasHeader(name)) reply.header(name, value);
      }
      if (options.https) reply.header('strict-transport-security', HSTS);
      done(null, payload);
    });
    registerJsonParser(app);
    app.setErrorHandler((error, request, reply) => {
      const { error: appErr, unexpected } = toAppError(error);
      if (unexpected) request.log.error({ err: error }, 'request failed');
      else if (appErr.status >= 500) request.log.warn({ code: appErr.code }, appErr.message);
      const audience = request.routeOptions.config?.audience ?? 'merchant';
      const { status, body } = shapeError(appErr, errorFormOf(request), request.id, audience);
      return reply.code(status).type('application/json; charset=utf-8').send(body);
    });
  },
  { name: 'mmp-edge', fastify: '5.x' },
);

export function errorFormOf(request: FastifyRequest): 'simple' | 'envelope' {
  return request.routeOptions.config?.errorForm ?? 'envelope';
}
