#!/usr/bin/env node
// `pnpm test`: lint, typecheck and every package's tests through turbo, then one closing
// line that adds up vitest's counts across packages ("N passed, N failed").
import { spawn } from 'node:child_process';

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

const steps = [
  // ESLint and prettier --check, as `pnpm lint` runs them (cached by turbo).
  ['pnpm', ['lint']],
  ['pnpm', ['exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only']],
  ['pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=1', ...process.argv.slice(2)]],
];
let failedStep = false;
let passed = 0;
let failed = 0;
let skipped = 0;
for (const [command, args] of steps) {
  const { code, output } = await run(command, args);
  // vitest: "Tests  3 failed | 40 passed | 2 skipped (45)"
  // eslint-disable-next-line no-control-regex
  for (const line of output.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const summary = line.match(/Tests\s+(.*)\(\d+\)/);
    if (!summary) continue;
    passed += Number(summary[1].match(/(\d+) passed/)?.[1] ?? 0);
    failed += Number(summary[1].match(/(\d+) failed/)?.[1] ?? 0);
    skipped += Number(summary[1].match(/(\d+) skipped/)?.[1] ?? 0);
  }
  if (code !== 0) {
    failedStep = true;
    console.error(`\n${command} ${args.join(' ')} failed (exit ${code})`);
    break;
  }
}
if (failedStep && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedStep ? 1 : 0);
