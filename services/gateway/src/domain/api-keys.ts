import type { ApiKeyKind } from '@mmp/protocol';
import { ALL_SCOPES, PUBLISHABLE_SAFE_SCOPES, SCOPES, type Scope } from '@mmp/protocol';

export type KeyKind = ApiKeyKind;

export function defaultScopes(kind: KeyKind): Scope[] {
  return kind === 'secret' ? (Object.keys(SCOPES) as Scope[]) : [...PUBLISHABLE_SAFE_SCOPES];
}

/**
 * Scopes a key of this kind may not hold, each with why: an unknown name (a typo, most often)
 * or an unsafe scope on a publishable key. The reason names the allowed ones, so the operator
 * can fix the request without reading the docs.
 */
export function refusedScopes(kind: KeyKind, scopes: readonly string[]): { scope: string; reason: string }[] {
  return scopes.flatMap((scope) => {
    if (!(scope in SCOPES))
      return [{ scope, reason: `${scope} is not a scope; scopes are ${ALL_SCOPES.join(', ')}` }];
    if (kind === 'publishable' && !PUBLISHABLE_SAFE_SCOPES.includes(scope as Scope)) {
      const safe = PUBLISHABLE_SAFE_SCOPES.join(', ');
      return [{ scope, reason: `${scope} is not allowed on a publishable key; it may hold only ${safe}` }];
    }
    return [];
  });
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
