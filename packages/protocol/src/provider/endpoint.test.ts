import { describe, expect, it } from 'vitest';
import { ProviderEndpointEnv } from './endpoint.js';

describe('ProviderEndpointEnv', () => {
  it('is off unless set, and reads the usual boolean spellings', () => {
    expect(ProviderEndpointEnv.parse({}).ALLOW_HTTP_LOOPBACK_ENDPOINTS).toBe(false);
    expect(
      ProviderEndpointEnv.parse({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' }).ALLOW_HTTP_LOOPBACK_ENDPOINTS,
    ).toBe(true);
    expect(ProviderEndpointEnv.safeParse({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'maybe' }).success).toBe(false);
  });
});
