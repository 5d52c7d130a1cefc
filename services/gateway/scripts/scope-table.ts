/**
 * Rewrites the generated parts of docs/api-keys-and-scopes.md (scopes and routes) and of the
 * README (scopes) from the scope list and the route table, so both say what the code
 * enforces: `pnpm --filter @mmp/gateway docs:scopes` (then `pnpm format`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PUBLISHABLE_SAFE_SCOPES, SCOPES } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { documented, type DocumentedRoute } from '../src/routes/route.js';

const root = resolve(import.meta.dirname, '../../..');
const BEGIN = '<!-- generated:scopes:begin -->';
const END = '<!-- generated:scopes:end -->';

function access(route: DocumentedRoute): string {
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
  .map(documented)
  .filter((route) => !route.page)
  .map((route) => `| ${route.method} | \`${route.url}\` | ${access(route)} | ${route.errorForm} |`);

const scopeTable = ['| Scope | Grants | Publishable-safe |', '|---|---|---|', ...scopeRows];

function rewrite(path: string, lines: string[]): void {
  const file = resolve(root, path);
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`${file} lacks the ${BEGIN} … ${END} markers`);
  const generated = [BEGIN, '', ...lines, '', END].join('\n');
  writeFileSync(file, current.slice(0, start) + generated + current.slice(end + END.length));
  console.error(`updated ${file}`);
}

rewrite('docs/api-keys-and-scopes.md', [
  '### Scopes',
  '',
  ...scopeTable,
  '',
  '### What each route needs',
  '',
  '| Method | Path | Needs | Error form |',
  '|---|---|---|---|',
  ...routeRows,
]);
rewrite('README.md', scopeTable);
