import Fastify from 'fastify';
import { serveChild } from './processes.js';

export type BaselineReady = { url: string };

/**
 * The floor: a bare Fastify 5 app with one JSON route, no plugins, no logging, no NATS,
 * in its own process so the system's background work does not run on its event loop.
 * It shares the CPUs and the load settings with the system under test, so the ratio to
 * it says what the gateway, the NATS hop and the store cost on this machine.
 */
serveChild<BaselineReady>(async () => {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ ok: true, service: 'baseline' }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { ready: { url }, stop: () => app.close() };
});
