/**
 * Scopes in the style of restricted keys: `<resource>:<read|write>`; write implies read.
 * The README's scope table is generated from this list (keep them together).
 */
export const SCOPES = {
  'payments:read': 'Retrieve, verify and list payments',
  'payments:write': 'Create and cancel payments',
  'payment_links:read': 'Retrieve and list payment links',
  'payment_links:write': 'Create and update payment links',
  'checkout_sessions:read': 'Retrieve checkout sessions',
  'checkout_sessions:write': 'Create checkout sessions',
  'customers:read': 'Read customer profiles, statistics and histories',
  'webhooks:read': 'List webhook endpoints and their deliveries',
  'webhooks:write': 'Create, update, roll and delete webhook endpoints; redeliver events',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Scopes a publishable key (embedded in client-side code) may carry. */
export const PUBLISHABLE_SAFE_SCOPES: Scope[] = ['payment_links:read', 'checkout_sessions:read'];

export function grants(held: readonly string[], needed: Scope): boolean {
  if (held.includes(needed)) return true;
  const [resource, access] = needed.split(':');
  return access === 'read' && held.includes(`${resource}:write`);
}
