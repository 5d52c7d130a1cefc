import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { schemaController } from './schema-controller.js';

describe("the gateway's Fastify apps", () => {
  it('refuses at start a route that hands Fastify a schema to validate or serialise with', async () => {
    const validated = Fastify({ schemaController });
    validated.post('/x', { schema: { body: { type: 'object' } } }, async () => ({}));
    await expect(validated.ready()).rejects.toThrow(/validate with zod/);
    const serialised = Fastify({ schemaController });
    serialised.get('/x', { schema: { response: { 200: { type: 'object' } } } }, async () => ({}));
    await expect(serialised.ready()).rejects.toThrow(/serialise their replies themselves/);
  });

  it('starts with routes that carry no schema, which every gateway route is', async () => {
    const plain = Fastify({ schemaController });
    plain.get('/x', async () => ({ ok: true }));
    await plain.ready();
    expect((await plain.inject({ method: 'GET', url: '/x' })).json()).toEqual({ ok: true });
  });
});
