import { z } from 'zod';

/**
 * The one development switch for provider endpoints, read by both services that call one
 * (provider-router's rail test, provider-delivery's deliveries), so a developer sets one
 * variable and both agree. The address rules themselves are the platform's outbound module
 * (`outboundUrlRefusal`, checked again when the socket connects).
 */
export const ProviderEndpointEnv = z.object({
  /**
   * Development and tests only: rail endpoints may be on loopback (`localhost`,
   * 127.0.0.0/8, `[::1]`), over `http://` too. Private and link-local ranges stay refused.
   */
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: z.stringbool().default(false),
});
export type ProviderEndpointEnv = z.infer<typeof ProviderEndpointEnv>;
