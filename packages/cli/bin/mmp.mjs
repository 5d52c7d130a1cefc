#!/usr/bin/env node
// `mmp` as pnpm installs it: the built CLI (after `pnpm build` or `pnpm start`), or, in a
// checkout not built yet, its source through tsx, so the command works either way.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const source = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const loader = import.meta.resolve('tsx');
  const run = spawnSync(
    process.execPath,
    ['--conditions=source', '--import', loader, source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exitCode = run.status ?? 1;
}
