import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustProxy } from '../src/config.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

/**
 * Per-IP rate limits behind a simulated proxy: each request comes from a socket address
 * (the proxy, or a client connecting directly) with the X-Forwarded-For it was given. One
 * request per IP per window, so a second one from the same bucket is 429.
 */
const PROXY = '10.0.0.5';
const gateways: TestGateway[] = [];

async function gatewayTrusting(trustProxy: string | undefined, label: string) {
  const gw = await startTestGateway({
    routes: [],
    label,
    env: { RATE_LIMIT_IP_MAX: '1', ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) },
  });
  gateways.push(gw);
  return (remoteAddress: string, forwardedFor?: string) =>
    gw
      .http('GET', '/v1/openapi.json', {
        remoteAddress,
        headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      })
      .then((response) => response.status);
}

let byNetwork: Awaited<ReturnType<typeof gatewayTrusting>>;
let byHops: Awaited<ReturnType<typeof gatewayTrusting>>;
let byNobody: Awaited<ReturnType<typeof gatewayTrusting>>;

beforeAll(async () => {
  byNetwork = await gatewayTrusting('10.0.0.0/8', 'gwproxynet');
  byHops = await gatewayTrusting('1', 'gwproxyhops');
  byNobody = await gatewayTrusting(undefined, 'gwproxynone');
});

afterAll(async () => {
  for (const gw of gateways) await gw.stop();
});

describe('TRUST_PROXY as trusted networks', () => {
  it('counts each client behind the proxy in its own bucket', async () => {
    expect(await byNetwork(PROXY, '203.0.113.1')).toBe(200);
    expect(await byNetwork(PROXY, '203.0.113.2')).toBe(200);
    expect(await byNetwork(PROXY, '203.0.113.1')).toBe(429);
  });

  it('ignores what a client writes before the address the proxy appended', async () => {
    expect(await byNetwork(PROXY, '198.51.100.50, 203.0.113.1')).toBe(429);
  });

  it('counts a client connecting around the proxy by its socket, whatever header it sends', async () => {
    expect(await byNetwork('198.51.100.7', '192.0.2.1')).toBe(200);
    expect(await byNetwork('198.51.100.7', '192.0.2.2')).toBe(429);
  });
});

describe('TRUST_PROXY as a hop count', () => {
  it('counts the address the nearest proxy saw, not what the client wrote', async () => {
    expect(await byHops(PROXY, '198.51.100.1, 203.0.113.7')).toBe(200);
    expect(await byHops(PROXY, '198.51.100.2, 203.0.113.7')).toBe(429);
    expect(await byHops(PROXY, '203.0.113.8')).toBe(200);
  });
});

describe('TRUST_PROXY unset', () => {
  it('counts the socket address and never reads X-Forwarded-For', async () => {
    expect(await byNobody(PROXY, '203.0.113.1')).toBe(200);
    expect(await byNobody(PROXY, '203.0.113.2')).toBe(429);
  });
});

describe('TRUST_PROXY values', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.7,fd00::/8,loopback', ['10.0.0.0/8', '192.168.1.7', 'fd00::/8', 'loopback']],
  ])('reads %j as %j', (value, expected) => {
    expect(TrustProxy.parse(value)).toEqual(expected);
  });

  it.each([
    ['true', /would trust any X-Forwarded-For/],
    ['10.0.0.0/33', /not an address or network: 10\.0\.0\.0\/33/],
    ['ingress.local', /not an address or network: ingress\.local/],
  ])('refuses %j, saying why', (value, message) => {
    const parsed = TrustProxy.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(message);
  });
});
