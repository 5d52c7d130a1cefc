#!/usr/bin/env node
// The packaging step of the images, also run by the packaging test:
//   node deploy/scripts/package-services.mjs <target-folder> <service>...
// builds each service and the workspace packages it uses, then copies into
// <target-folder>/<service> its dist/ (and public/) and only its production dependencies
// (`pnpm deploy --prod`), ready to run with `node dist/bundle/main.mjs` from that folder.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const [target, ...services] = process.argv.slice(2);
const known = readdirSync(join(root, 'services'));
if (!target || services.length === 0 || services.some((service) => !known.includes(service))) {
  console.error(`usage: package-services.mjs <target-folder> <service>...\nservices: ${known.join(' ')}`);
  process.exit(2);
}

function run(command, args) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code, signal) => {
      if (code === 0) return done();
      console.error(`${command} ${args.join(' ')} failed (${signal ?? code})`);
      process.exit(1);
    });
  });
}

async function packageService(service) {
  const out = resolve(target, service);
  rmSync(out, { recursive: true, force: true });
  // --legacy: the workspace links its packages (no injected copies), which the newer
  // deploy refuses; each package's "files" field decides what is copied (dist, not src);
  // --prefer-offline: packages come from the store the install filled; only metadata the
  // install did not cache (a frozen-lockfile install caches none) is fetched from the registry.
  await run('pnpm', ['--filter', `@mmp/${service}`, '--prod', '--prefer-offline', 'deploy', '--legacy', out]);
  if (!existsSync(join(out, 'dist', 'bundle', 'main.mjs'))) {
    console.error(`${service}: no dist/bundle/main.mjs in ${out}`);
    process.exit(1);
  }
}

// turbo builds each service with its workspace dependencies, once, from its cache when unchanged.
await run('pnpm', [
  'exec',
  'turbo',
  'run',
  'build',
  '--output-logs=errors-only',
  ...services.map((service) => `--filter=@mmp/${service}...`),
]);
// Two at a time: copying is mostly disk work, and CI machines have two cores.
const queue = [...services];
await Promise.all(
  [0, 1].map(async () => {
    for (let service = queue.shift(); service; service = queue.shift()) await packageService(service);
  }),
);
