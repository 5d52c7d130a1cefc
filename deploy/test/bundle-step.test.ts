import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from '../src/generate.js';

/**
 * The last step of every service's build (`scripts/bundle-service.mjs`), run on a made-up
 * service: the shapes it must refuse broke every call out of a packaged service while the
 * end-to-end tests, which run the sources, stayed green.
 */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

type Service = { dependencies?: Record<string, string>; main: string; packages?: Record<string, string> };

/** A service folder as tsc leaves it (package.json, dist/main.js), with its own node_modules. */
function serviceFolder({ dependencies = {}, main, packages = {} }: Service): string {
  const folder = mkdtempSync(join(tmpdir(), 'mmp-bundle-'));
  folders.push(folder);
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name: '@mmp/made-up', type: 'module', dependencies }),
  );
  mkdirSync(join(folder, 'dist'));
  writeFileSync(join(folder, 'dist/main.js'), main);
  for (const [name, source] of Object.entries(packages)) {
    mkdirSync(join(folder, 'node_modules', name), { recursive: true });
    const type = /^export /m.test(source) ? 'module' : 'commonjs';
    writeFileSync(
      join(folder, 'node_modules', name, 'package.json'),
      JSON.stringify({ name, type, main: 'index.js' }),
    );
    writeFileSync(join(folder, 'node_modules', name, 'index.js'), source);
  }
  return folder;
}

function bundle(folder: string) {
  return spawnSync(process.execPath, [join(REPO, 'scripts/bundle-service.mjs')], {
    cwd: folder,
    encoding: 'utf8',
  });
}

const run = (folder: string) =>
  spawnSync(process.execPath, ['dist/bundle/main.mjs'], { cwd: folder, encoding: 'utf8' });

describe('the bundle step', () => {
  it('bundles a service into dist/bundle/main.mjs, which runs with the code it imported inside', () => {
    const folder = serviceFolder({
      main: "import { greeting } from 'greeter';\nconst { loud } = await import('loud');\nconsole.log(loud(greeting));\n",
      packages: {
        greeter: "exports.greeting = 'akwaba';\n",
        loud: 'export const loud = (text) => text.toUpperCase();\n',
      },
    });
    expect(bundle(folder).status).toBe(0);
    rmSync(join(folder, 'node_modules'), { recursive: true });
    const started = run(folder);
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe('AKWABA\n');
  });

  it('refuses a CommonJS package loaded by import() whose chunk would export only its default', () => {
    const folder = serviceFolder({
      main: "const { request } = await import('http-client');\nconsole.log(typeof request);\n",
      packages: { 'http-client': 'exports.request = () => 200;\n' },
    });
    // The shape refused: its named export is gone from the bundle.
    const result = bundle(folder);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /a CommonJS package loaded by import\(\) became a chunk; list it in EXTERNAL/,
    );
  });

  it('refuses a bundle that loads a package left outside it which the service does not depend on', () => {
    const folder = serviceFolder({
      main: "const { request } = await import('undici');\nexport { request };\n",
    });
    const result = bundle(folder);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      '@mmp/made-up: its bundle loads undici, which are not among its dependencies',
    );
  });

  it('accepts a package left outside the bundle once the service depends on it', () => {
    const folder = serviceFolder({
      dependencies: { undici: '*' },
      main: "const { request } = await import('undici');\nexport { request };\n",
    });
    const result = bundle(folder);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
