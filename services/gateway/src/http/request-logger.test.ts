import { Writable } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@mmp/platform';
import { childOnFirstLine } from './request-logger.js';

function logged(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const parent = createLogger({ service: 'gateway', level, destination }) as FastifyBaseLogger;
  return { lines, parent };
}

/** Counts the children pino is asked to make for requests: the cost the deferral saves. */
function countChildren(fastify: FastifyInstance) {
  let children = 0;
  const log = fastify.log;
  const child = log.child.bind(log);
  log.child = (...args) => {
    children += 1;
    return child(...args);
  };
  return () => children;
}

function app(parent: FastifyBaseLogger) {
  const fastify = Fastify({
    loggerInstance: parent,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: childOnFirstLine,
  });
  fastify.get('/quiet', async (request) => {
    request.log.debug({ step: 1 }, 'below the level');
    return { ok: true };
  });
  fastify.post('/loud', async (request) => {
    request.log.info({ authorization: 'Bearer svc_test_sk_abcdefgh12345678' }, 'changed');
    request.log.child({ component: 'inner' }).warn('from a child');
    return { ok: true };
  });
  fastify.get('/verbose', { logLevel: 'debug' }, async (request) => {
    request.log.debug('a route that logs more');
    return { ok: true };
  });
  return fastify;
}

describe('the per-request logger', () => {
  it('makes no child, and writes nothing, for a request whose lines its level drops', async () => {
    const { lines, parent } = logged('info');
    const fastify = app(parent);
    const children = countChildren(fastify);
    const response = await fastify.inject({
      method: 'GET',
      url: '/quiet',
      headers: { 'x-request-id': 'q-1' },
    });
    expect(response.statusCode).toBe(200);
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    expect(fastify.log.level).toBe('info');
  });

  it('writes a line with the request id, redacted, and children that keep it', async () => {
    const { lines, parent } = logged('info');
    const fastify = app(parent);
    await fastify.inject({ method: 'POST', url: '/loud' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'changed',
      authorization: '[REDACTED]',
      service: 'gateway',
    });
    expect(lines[1]).toMatchObject({ level: 40, msg: 'from a child', component: 'inner' });
    expect(lines[0]!.reqId).toEqual(expect.stringMatching(/./));
    expect(lines[1]!.reqId).toBe(lines[0]!.reqId);
    expect(JSON.stringify(lines)).not.toContain('abcdefgh12345678');
  });

  it('gives a route with a level of its own a child at that level', async () => {
    const { lines, parent } = logged('info');
    await app(parent).inject({ method: 'GET', url: '/verbose' });
    expect(lines).toMatchObject([{ level: 20, msg: 'a route that logs more' }]);
  });

  it('answers and changes its level like the child it stands for', async () => {
    const { lines, parent } = logged('info');
    const log = childOnFirstLine.call(
      Fastify(),
      parent,
      { requestId: 'r-2' },
      {},
      {} as never,
    ) as FastifyBaseLogger;
    expect(log.level).toBe('info');
    log.debug('dropped');
    log.level = 'debug';
    log.debug('kept');
    expect(log.level).toBe('debug');
    expect(parent.level).toBe('info');
    expect(lines).toMatchObject([{ level: 20, msg: 'kept', requestId: 'r-2' }]);
  });
});
