import { describe, expect, it } from 'vitest';
import { ProviderEndpointEnv, isLoopbackHost, providerEndpointRefusal } from './endpoint.js';

describe('providerEndpointRefusal', () => {
  it('always allows https://', () => {
    expect(providerEndpointRefusal('https://provider.example/orders', false)).toBeNull();
    expect(providerEndpointRefusal('https://127.0.0.1:8443/orders', false)).toBeNull();
  });

  it('allows http:// only on loopback and only with the flag', () => {
    for (const endpoint of [
      'http://127.0.0.1:8080/orders',
      'http://127.3.2.1/orders',
      'http://127.1/orders',
      'http://localhost/orders',
      'http://LOCALHOST:9000/orders',
      'http://[::1]/orders',
    ]) {
      expect(providerEndpointRefusal(endpoint, true), endpoint).toBeNull();
      expect(providerEndpointRefusal(endpoint, false), endpoint).toMatch(/must use https:\/\//);
    }
  });

  it('refuses http:// elsewhere, other schemes and non-URLs, saying why', () => {
    expect(providerEndpointRefusal('http://provider.example/orders', true)).toBe(
      'the endpoint must use https:// (got http://provider.example)',
    );
    expect(providerEndpointRefusal('http://127.0.0.1.evil.example/orders', true)).toMatch(/https/);
    expect(providerEndpointRefusal('http://10.0.0.1/orders', true)).toMatch(/https/);
    expect(providerEndpointRefusal('ftp://127.0.0.1/x', true)).toMatch(/https/);
    expect(providerEndpointRefusal('not a url', true)).toBe('the endpoint is not a valid URL');
  });

  it('knows loopback hosts as the URL parser spells them', () => {
    expect(isLoopbackHost('127.255.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.example')).toBe(false);
  });
});

describe('ProviderEndpointEnv', () => {
  it('is off unless set, and reads the usual boolean spellings', () => {
    expect(ProviderEndpointEnv.parse({}).ALLOW_HTTP_LOOPBACK_ENDPOINTS).toBe(false);
    expect(
      ProviderEndpointEnv.parse({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' }).ALLOW_HTTP_LOOPBACK_ENDPOINTS,
    ).toBe(true);
    expect(ProviderEndpointEnv.safeParse({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'maybe' }).success).toBe(false);
  });
});
