import type { FastifyServerOptions } from 'fastify';

/**
 * The gateway checks input with zod (`parseInput`) and writes replies itself
 * (`replySerializersOf`), so Fastify's own compilers would load Ajv and fast-json-stringify
 * for nothing: a route that hands Fastify a schema fails at start instead. Both of the
 * gateway's Fastify apps (the API and the reference page) take this controller, which is
 * what lets the bundle leave the compilers out (scripts/bundle-service.mjs).
 */
function refuseFastifySchemas(): never {
  throw new Error('gateway routes validate with zod and serialise their replies themselves');
}

export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: refuseFastifySchemas, buildSerializer: refuseFastifySchemas },
};
