import type { ApiKeyKind } from '@mmp/protocol';
import { PUBLISHABLE_SAFE_SCOPES, SCOPES, type Scope } from './scopes.js';

export type KeyKind = ApiKeyKind;

export function defaultScopes(kind: KeyKind): Scope[] {
  return kind === 'secret' ? (Object.keys(SCOPES) as Scope[]) : [...PUBLISHABLE_SAFE_SCOPES];
}

/** Scopes a key of this kind may not hold: unknown names, or unsafe ones on a publishable key. */
export function forbiddenScopes(kind: KeyKind, scopes: readonly string[]): string[] {
  return scopes.filter(
    (scope) =>
      !(scope in SCOPES) || (kind === 'publishable' && !PUBLISHABLE_SAFE_SCOPES.includes(scope as Scope)),
  );
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
