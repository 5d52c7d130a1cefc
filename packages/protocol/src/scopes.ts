/**
 * Scopes in the style of restricted keys: `<resource>:<read|write>`; write implies read.
 * The scope tables of the README and docs/api-keys-and-scopes.md are generated from this
 * list (`pnpm --filter @mmp/gateway docs:scopes`); a test fails when they drift apart.
 */
export const SCOPES = {
  'payments:read': 'Retrieve, verify and list payments',
  'payments:write': 'Create and cancel payments',
  'payment_links:read': 'Retrieve and list payment links',
  'payment_links:write': 'Create, update and delete payment links',
  'checkout_sessions:read': 'Retrieve checkout sessions',
  'checkout_sessions:write': 'Create checkout sessions',
  'customers:read': 'Read customer profiles, statistics and histories',
  'webhooks:read': 'List webhook endpoints and their deliveries',
  'webhooks:write': 'Create, update, roll and delete webhook endpoints; redeliver events',
  'refunds:read': "Retrieve and list a payment's refunds",
  'refunds:write': 'Refund completed payments',
  'payouts:read': 'Retrieve and list payouts',
  'payouts:write': 'Send payouts from the available balance',
  'balance:read': 'Read the available and pending balance per currency',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/**
 * Scopes a publishable key (embedded in client-side code) may carry. Not `payment_links:read`:
 * listing and reading a merchant's links is secret-key CRUD (ARCHITECTURE); a page reads one
 * link publicly by its short code instead.
 */
export const PUBLISHABLE_SAFE_SCOPES: Scope[] = ['checkout_sessions:read'];

export function grants(held: readonly string[], needed: Scope): boolean {
  if (held.includes(needed)) return true;
  const [resource, access] = needed.split(':');
  return access === 'read' && held.includes(`${resource}:write`);
}
