import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { paymentsApi } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { recordedReply } from './fixtures/replies.js';

/**
 * A key's claim is a lease its holder renews while the request runs: a retry behind a
 * request that outlasts many leases still waits for it and gets its answer, instead of
 * taking the key over (a second run) or answering 409.
 */
let gw: TestGateway;
let merchantKey: string;
let calls = 0;

beforeAll(async () => {
  gw = await startTestGateway({
    routes: forwardedRoutes.filter((route) => route.operation === paymentsApi.create),
    label: 'gwlease',
    env: { IDEMPOTENCY_STALE_MS: '300' },
  });
  await gw.serve(
    operation(paymentsApi.create, async () => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return { status: 201, body: recordedReply(paymentsApi.create, 201) };
    }),
  );
  merchantKey = (await gw.createProject()).testSecret.key;
});

afterAll(async () => {
  await gw?.stop();
});

const create = () =>
  gw.http('POST', '/v1/payments', {
    token: merchantKey,
    body: { amount: 1000 },
    headers: { 'idempotency-key': 'slow-1' },
  });

describe('a retry behind a live holder', () => {
  it('waits past the lease for the first answer and runs the work once', async () => {
    const first = create();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const retry = await create();
    const answer = await first;
    expect(answer.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(answer.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toBe(1);
  });
});
