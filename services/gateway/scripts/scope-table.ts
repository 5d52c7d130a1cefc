/**
 * Rewrites the generated part of docs/api-keys-and-scopes.md from the scope list and the
 * route table, so the document says what the code enforces:
 * `pnpm --filter @mmp/gateway docs:scopes`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PUBLISHABLE_SAFE_SCOPES, SCOPES } from '../src/domain/scopes.js';
import { forwardedRoutes } from '../src/routes/index.js';
import type { ForwardedRoute } from '../src/routes/route.js';

const file = resolve(import.meta.dirname, '../../../docs/api-keys-and-scopes.md');
const BEGIN = '<!-- generated:scopes:begin -->';
const END = '<!-- generated:scopes:end -->';

function access(route: ForwardedRoute): string {
  switch (route.auth) {
    case 'merchant':
      return `\`${route.scope}\`${route.projectParam ? ` (key of project \`:${route.projectParam}\`)` : ''}`;
    case 'public':
      return 'public (no key)';
    case 'signed':
      return 'signature over the raw body';
    case 'provider':
      return 'provider key `sk_…`';
    case 'admin':
      return 'admin token';
  }
}

const scopeRows = Object.entries(SCOPES).map(
  ([scope, meaning]) =>
    `| \`${scope}\` | ${meaning} | ${PUBLISHABLE_SAFE_SCOPES.includes(scope as never) ? 'yes' : 'no'} |`,
);
const routeRows = forwardedRoutes
  .filter((route) => !route.page)
  .map((route) => `| ${route.method} | \`${route.url}\` | ${access(route)} | ${route.errorForm} |`);

const generated = [
  BEGIN,
  '',
  '### Scopes',
  '',
  '| Scope | Grants | Publishable-safe |',
  '|---|---|---|',
  ...scopeRows,
  '',
  '### What each route needs',
  '',
  '| Method | Path | Needs | Error form |',
  '|---|---|---|---|',
  ...routeRows,
  '',
  END,
].join('\n');

const current = readFileSync(file, 'utf8');
const start = current.indexOf(BEGIN);
const end = current.indexOf(END);
if (start < 0 || end < 0) throw new Error(`${file} lacks the ${BEGIN} … ${END} markers`);
writeFileSync(file, current.slice(0, start) + generated + current.slice(end + END.length));
console.error(`updated ${file}: ${scopeRows.length} scopes, ${routeRows.length} routes`);
