import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { appError, paymentsApi, randomBase62 } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { recordedReply } from './fixtures/replies.js';

/**
 * The gateway as it runs (LOG_LEVEL info): a request whose lines the level drops costs no
 * pino child, which pino would serialise and redact on creation; one that writes a line
 * gets its request id on it.
 */
let gw: TestGateway;
let project: Awaited<ReturnType<TestGateway['createProject']>>;
let children = 0;
const known = `pay_${randomBase62(24)}`;

beforeAll(async () => {
  gw = await startTestGateway({ routes: forwardedRoutes, label: 'gwlog', env: { LOG_LEVEL: 'info' } });
  await gw.serve(
    operation(paymentsApi.retrieve, async (request) => {
      if (request.params.token !== known) throw appError('resource_not_found', 'No such payment.');
      return { status: 200, body: { ...recordedReply(paymentsApi.retrieve, 200), token: known } };
    }),
  );
  project = await gw.createProject('Logged');
  const log = gw.app.log;
  const child = log.child.bind(log);
  log.child = (...args) => {
    children += 1;
    return child(...args);
  };
});

afterAll(async () => {
  await gw?.stop();
});

const accessLines = (requestId: string) =>
  gw.logs
    .text()
    .split('\n')
    .filter((line) => line.includes(`"requestId":"${requestId}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the gateway's request logger", () => {
  it('makes no child and writes no line for a successful read at level info', async () => {
    const before = children;
    const read = await gw.http('GET', `/v1/payments/${known}`, {
      token: project.testSecret.key,
      headers: { 'x-request-id': 'quiet-read-1' },
    });
    expect(read.status).toBe(200);
    expect(children - before).toBe(0);
    expect(accessLines('quiet-read-1')).toEqual([]);
  });

  it('writes the access line of a refused read with its request id, and no key', async () => {
    const refused = await gw.http('GET', `/v1/payments/pay_${randomBase62(24)}`, {
      token: project.testSecret.key,
      headers: { 'x-request-id': 'refused-read-1' },
    });
    expect(refused.status).toBe(404);
    const [line, ...more] = accessLines('refused-read-1');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ msg: 'request completed', statusCode: 404, route: '/v1/payments/:token' });
    expect(gw.logs.text()).not.toContain(project.testSecret.key);
  });
});
