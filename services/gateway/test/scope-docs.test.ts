import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PUBLISHABLE_SAFE_SCOPES, SCOPES } from '@mmp/protocol';

/** The scope rows of a generated table: `scope -> publishable-safe`. */
function scopeRows(path: string): Record<string, string> {
  const text = readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
  const generated = text.slice(
    text.indexOf('<!-- generated:scopes:begin -->'),
    text.indexOf('<!-- generated:scopes:end -->'),
  );
  const rows: Record<string, string> = {};
  for (const match of generated.matchAll(/^\|\s*`([a-z_]+:[a-z]+)`\s*\|[^|]*\|\s*(yes|no)\s*\|$/gm)) {
    rows[match[1]!] = match[2]!;
  }
  return rows;
}

describe('scope documentation', () => {
  const expected = Object.fromEntries(
    Object.keys(SCOPES).map((scope) => [
      scope,
      PUBLISHABLE_SAFE_SCOPES.includes(scope as never) ? 'yes' : 'no',
    ]),
  );

  it.each(['README.md', 'docs/api-keys-and-scopes.md'])(
    '%s lists exactly the scopes the gateway enforces (regenerate with docs:scopes)',
    (path) => {
      expect(scopeRows(path)).toEqual(expected);
    },
  );
});
