import { appError } from '../errors.js';
import type { Actor } from './envelope.js';

const DEFAULT_REFUSALS: Record<Actor['kind'], string> = {
  merchant: 'This operation needs a merchant API key.',
  provider: 'This operation needs a provider API key.',
  admin: 'This operation needs the admin token.',
  public: 'This operation is public.',
  service: 'This operation is internal to the system.',
};

/**
 * The one authorisation check of an operation: the caller must be one of `kinds`, else
 * 403 insufficient_permissions. The gateway already routes by key type; this is the
 * service's own guard, so a mis-declared route can never widen access.
 */
export function requireActor<K extends Actor['kind']>(
  actor: Actor,
  kinds: readonly K[],
  message = DEFAULT_REFUSALS[kinds[0]!],
): Extract<Actor, { kind: K }> {
  if (!(kinds as readonly string[]).includes(actor.kind)) throw appError('insufficient_permissions', message);
  return actor as Extract<Actor, { kind: K }>;
}
