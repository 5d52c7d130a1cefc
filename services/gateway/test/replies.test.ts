import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { providerPortalApi, routerQueries, type HttpOperationContract } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { documented, type ForwardedRoute } from '../src/routes/route.js';
import { replySerializersOf } from '../src/http/reply-serializers.js';
import { ADMIN_TOKEN, startTestGateway, type HttpInit, type TestGateway } from './fixtures/gateway.js';
import { recordedReplies, type RecordedReply } from './fixtures/replies.js';

/**
 * Replies are serialised from their contract's response schemas, which drop whatever a
 * schema does not declare. Every route that has a schema sends here what the real service
 * sent (recorded), and must show the caller exactly that.
 */
let gw: TestGateway;
let project: Awaited<ReturnType<TestGateway['createProject']>>;
let providerKey: string;
/** What the stubs answer next: one recorded reply at a time. */
let next: RecordedReply | undefined;

const serialised = forwardedRoutes.filter((route) => replySerializersOf(documented(route)) !== undefined);
const contracts = [...new Set(serialised.map((route) => route.operation))];

beforeAll(async () => {
  // Several recorded replies go to one path: none may be answered from a kept reply.
  gw = await startTestGateway({ routes: forwardedRoutes, label: 'gwreplies', env: { REPLY_CACHE_MS: '0' } });
  const stub = (contract: HttpOperationContract) =>
    operation(contract, async () => {
      if (next?.operation !== contract.subject) throw new Error(`unexpected call of ${contract.subject}`);
      return { status: next.status, body: next.body };
    });
  await gw.serve(
    ...contracts.map(stub),
    operation(routerQueries.createProvider, async ({ name }) => ({
      id: 'prv_replies',
      name,
      signingSecret: 'ssec_RecordedFixtureNotASecret0000000',
    })),
  );
  project = await gw.createProject('Replies');
  providerKey = (await gw.admin('POST', '/v1/admin/providers', { name: 'Replies Co' })).json.apiKey;
});

afterAll(async () => {
  await gw?.stop();
});

/** The route's URL with every parameter filled, and the credentials its guard asks for. */
function requestFor(route: ForwardedRoute): { path: string; init: HttpInit } {
  const path = route.url.replace(/:([A-Za-z]+)/g, (_match, name: string) =>
    name === 'projectId' ? project.id : `x-${name}`,
  );
  const token = {
    merchant: project.testSecret.key,
    provider: providerKey,
    admin: ADMIN_TOKEN,
    public: undefined,
    signed: undefined,
  }[route.auth];
  const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? { any: 'thing' } : undefined;
  return { path, init: { token, body } };
}

describe('replies serialised from their response schemas', () => {
  it('have a recorded real reply for every route that has a response schema', () => {
    const unrecorded = contracts.filter(
      (contract) => !recordedReplies.some((reply) => reply.operation === contract.subject),
    );
    expect(unrecorded.map((contract) => contract.subject)).toEqual([]);
  });

  it.each(serialised.map((route) => [`${route.method} ${route.url}`, route] as const))(
    '%s shows every field the service sent',
    async (_name, route) => {
      const { path, init } = requestFor(route);
      for (const reply of recordedReplies.filter((r) => r.operation === route.operation.subject)) {
        next = reply;
        const response = await gw.http(route.method, path, init);
        expect(response.status, response.text).toBe(reply.status);
        expect(response.json).toEqual(reply.body);
      }
    },
  );

  it('lost nothing on any other reply either (the gateway’s own routes)', () => {
    expect(gw.serializerLosses).toEqual([]);
  });

  it('are really cut to their schema: a field no contract declares never reaches the caller', async () => {
    const route = serialised.find((candidate) => candidate.operation === providerPortalApi.profile)!;
    const recorded = recordedReplies.find((reply) => reply.operation === route.operation.subject)!;
    next = { ...recorded, body: { ...(recorded.body as object), internalNote: 'not for callers' } };
    const { path, init } = requestFor(route);
    const response = await gw.http(route.method, path, init);
    expect(response.json).toEqual(recorded.body);
    expect(gw.serializerLosses.map((loss) => loss.route)).toEqual([`GET ${route.url}`]);
  });
});
