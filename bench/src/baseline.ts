import Fastify from 'fastify';

/**
 * The floor: a bare Fastify 5 app with one JSON route, no plugins, no logging, no NATS.
 * It shares the process, the CPUs and the load settings with the system under test, so
 * the ratio to it says what the gateway, NATS hop and store cost on this machine.
 */
export async function startBaseline(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ ok: true, service: 'baseline' }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}
