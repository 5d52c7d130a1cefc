import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { paymentsApi, settlementsApi } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { expectEnvelopeError, expectSimpleError, startTestGateway } from './fixtures/gateway.js';
import type { TestGateway } from './fixtures/gateway.js';
import { recordedReply } from './fixtures/replies.js';

/**
 * A body under the gateway's limit (1 MiB) may still be too large to cross NATS (1 MiB
 * max_payload, with the envelope around it): it is refused with 413, which tells a client
 * not to retry, never the 503 of a service that is merely away.
 */
let gw: TestGateway;
let merchantKey: string;
const received: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    routes: forwardedRoutes.filter(
      (route) => route.operation === settlementsApi.ingest || route.operation === paymentsApi.create,
    ),
    label: 'gwbodies',
  });
  await gw.serve(
    operation(settlementsApi.ingest, async () => {
      received.push(settlementsApi.ingest.subject);
      return { status: 200, body: recordedReply(settlementsApi.ingest, 200) };
    }),
    operation(paymentsApi.create, async () => {
      received.push(paymentsApi.create.subject);
      return { status: 201, body: recordedReply(paymentsApi.create, 201) };
    }),
  );
  merchantKey = (await gw.createProject()).testSecret.key;
});

afterAll(async () => {
  await gw?.stop();
});

/** A JSON body of about `bytes` bytes. */
const bodyOf = (bytes: number) => JSON.stringify({ protocol_version: '1', padding: 'x'.repeat(bytes - 40) });
const settle = (raw: string) =>
  gw.http('POST', '/v1/provider/webhooks/prv_big', {
    raw,
    headers: { 'content-type': 'application/json', 'x-service-signature': 'ab'.repeat(32) },
  });

describe('bodies too large to forward', () => {
  it('reach the service while they fit', async () => {
    expect((await settle(bodyOf(100 * 1024))).status).toBe(200);
    expect(received).toEqual([settlementsApi.ingest.subject]);
  });

  it('reach the service at 900 KB on a signed route, whose body crosses the bus once, as its exact text', async () => {
    received.length = 0;
    expect((await settle(bodyOf(900 * 1024))).status).toBe(200);
    expect(received).toEqual([settlementsApi.ingest.subject]);
  });

  it('answer 413 payload_too_large on a signed route just under the body limit', async () => {
    received.length = 0;
    const response = await settle(bodyOf(1024 * 1024 - 100));
    expectEnvelopeError(response, 413, 'payload_too_large');
    expect(response.json.error.message).toBe(
      'The request is too large to pass on to the provider-router service.',
    );
    expect(received).toEqual([]);
  });

  it('answer 413 on a merchant route too, in its own error form', async () => {
    const response = await gw.http('POST', '/v1/payments', {
      token: merchantKey,
      raw: bodyOf(1024 * 1024 - 256),
      headers: { 'content-type': 'application/json' },
    });
    expectSimpleError(response, 413, 'payload_too_large');
    expect(response.json.message).toBe('The request is too large to pass on to the payments service.');
    expect(received).toEqual([]);
  });

  it('answer 413 from the body limit itself past 1 MiB', async () => {
    const response = await settle(bodyOf(1536 * 1024));
    expectEnvelopeError(response, 413, 'payload_too_large');
    expect(response.json.error.message).toBe('The request body is too large.');
    expect(received).toEqual([]);
  });
});
