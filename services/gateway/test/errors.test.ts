import { describe, expect, it } from 'vitest';
import { useEdgeGateway } from './fixtures/edge.js';
import { expectEnvelopeError, expectSimpleError } from './fixtures/gateway.js';

const edge = useEdgeGateway('gwerrors');

/** POST /v1/payments with the exact body and content type given. */
const postPayment = (raw: string, headers: Record<string, string> = {}) =>
  edge.gw.http('POST', '/v1/payments', {
    token: edge.shop.testSecret.key,
    raw,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('error forms', () => {
  it('400 validation_error lists one entry per invalid field on a merchant route', async () => {
    const response = await edge.gw.http('POST', '/v1/payments/pay_x/invalid', {
      token: edge.shop.testSecret.key,
      body: {},
    });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid fields: amount, currency.',
      code: 'validation_error',
      requestId: response.headers.get('x-request-id'),
      errors: [
        { field: 'amount', message: 'must be at least 100' },
        { field: 'currency', message: 'must be XAF or XOF' },
      ],
    });
  });

  it('400 for malformed JSON', async () => {
    const response = await postPayment('{"amount": 10');
    expectSimpleError(response, 400, 'invalid_request');
  });

  it.each([
    ['__proto__', '{"amount": 1000, "__proto__": {"isAdmin": true}}'],
    ['constructor.prototype', '{"amount": 1000, "constructor": {"prototype": {"isAdmin": true}}}'],
  ])('400 for a body carrying %s (prototype poisoning), before any service sees it', async (_key, raw) => {
    const before = edge.seen.length;
    const response = await postPayment(raw);
    expectSimpleError(response, 400, 'invalid_request');
    expect(response.json.message).toContain('__proto__ or constructor.prototype');
    expect(edge.seen.length).toBe(before);
  });

  it('400 for JSON nested deeper than any request needs, before anything walks it', async () => {
    const deep = `${'['.repeat(1500)}${']'.repeat(1500)}`;
    const response = await postPayment(`{"metadata": ${deep}}`, { 'idempotency-key': 'deep-1' });
    expectSimpleError(response, 400, 'invalid_request');
    expect(response.json.message).toContain('64 levels');
    const strings = await postPayment(JSON.stringify({ description: '[[[[{{{{'.repeat(50), amount: 1000 }));
    expect(strings.status).toBe(201);
  });

  it('answers absurd URLs in the envelope form: over-long ids 404, broken encoding 400', async () => {
    const long = await edge.gw.http('GET', `/v1/payments/${'a'.repeat(1500)}`, {
      token: edge.shop.testSecret.key,
    });
    expectEnvelopeError(long, 404, 'resource_not_found');
    expect(long.headers.get('content-security-policy')).toContain("default-src 'none'");
    const broken = await edge.gw.http('GET', '/v1/payments/%E0%A4%A', { token: edge.shop.testSecret.key });
    expectEnvelopeError(broken, 400, 'invalid_request');
  });

  it('415 for a wrong content type', async () => {
    const response = await postPayment('amount=10', { 'content-type': 'application/x-www-form-urlencoded' });
    expectSimpleError(response, 415, 'unsupported_media_type');
  });

  it('413 for a body over the limit', async () => {
    const response = await edge.gw.http('POST', '/v1/payments', {
      token: edge.shop.testSecret.key,
      body: { description: 'x'.repeat(5000) },
    });
    expectSimpleError(response, 413, 'payload_too_large');
  });

  it('404 route_not_found in the envelope form for an unknown route', async () => {
    const response = await edge.gw.http('GET', '/v1/nothing/here');
    expectEnvelopeError(response, 404, 'route_not_found');
    expect(response.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('405 method_not_allowed with an Allow header for a route path with another method', async () => {
    const before = edge.seen.length;
    const response = await edge.gw.http('DELETE', '/v1/payments', { token: edge.shop.testSecret.key });
    expectEnvelopeError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(response.json.error.message).toBe('/v1/payments does not take DELETE; it takes GET, HEAD, POST.');
    const withParam = await edge.gw.http('PUT', '/v1/payments/pay_123?x=1', {
      token: edge.shop.testSecret.key,
    });
    expectEnvelopeError(withParam, 405, 'method_not_allowed');
    expect(withParam.headers.get('allow')).toBe('GET, HEAD');
    expect(edge.seen.length).toBe(before);
  });

  it('503 service_unavailable when the service does not answer in time', async () => {
    const response = await edge.gw.http('GET', '/v1/slow');
    expectEnvelopeError(response, 503, 'service_unavailable');
    expect(response.json.error.type).toBe('api_error');
  });

  it('waits past the timeout for a request its route says the service holds on purpose', async () => {
    expect((await edge.gw.http('GET', '/v1/slow-held?wait_ms=3000')).status).toBe(200);
    expectEnvelopeError(await edge.gw.http('GET', '/v1/slow-held'), 503, 'service_unavailable');
  });

  it('503 service_unavailable when nobody serves the operation', async () => {
    const response = await edge.gw.http('GET', '/v1/nobody');
    expect(response.status).toBe(503);
    expect(response.json.error.code).toBe('service_unavailable');
  });

  it('500 hides the cause and never shows a stack', async () => {
    const response = await edge.gw.http('GET', '/v1/broken');
    expectSimpleError(response, 500, 'internal_error');
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain(' at ');
  });

  it('sets security headers and the request id on every response', async () => {
    const response = await edge.gw.http('GET', '/v1/payments', { token: edge.shop.testSecret.key });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
