/**
 * `npm pack` of the kit as a provider installs it in their own project, outside this
 * repository: `pnpm --filter @mmp/provider-kit pack:standalone [--out DIR]` prints the
 * tarball's path.
 *
 * In the workspace the kit imports `@mmp/protocol` (a workspace package, never published)
 * and names its dependencies from the pnpm catalog; neither means anything to npm. So the
 * kit and the protocol are built, staged together (the protocol's build under
 * `dist/protocol`, the kit's imports pointed at it), with a package.json that declares the
 * registry dependencies they need at the catalog's versions, and that folder is packed.
 * The example adapter goes along, compiled, importing the kit by its package name.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const kitDir = resolve(import.meta.dirname, '..');
const protocolDir = resolve(kitDir, '../protocol');
const workspaceRoot = resolve(kitDir, '../..');
const require = createRequire(import.meta.url);
const ts = require('typescript');

/**
 * Registry packages the staged kit and protocol import at run time: their own dependencies
 * but the workspace's, read from their manifests so that a dependency added to either ships.
 */
function runtimeDependencies() {
  const names = new Set();
  for (const dir of [kitDir, protocolDir]) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const [name, version] of Object.entries(manifest.dependencies ?? {}))
      if (!String(version).startsWith('workspace:')) names.add(name);
  }
  return [...names].sort();
}

function build(packageDir) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: packageDir,
    stdio: 'inherit',
  });
}

/** The versions the workspace catalog pins, from pnpm-workspace.yaml's `catalog:` map. */
function catalogVersions() {
  const yaml = readFileSync(join(workspaceRoot, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^catalog:\n((?:[ \t]+.*\n?)+)/m.exec(yaml)?.[1] ?? '';
  const versions = new Map();
  for (const line of block.split('\n')) {
    const match = /^\s+'?([^':]+)'?:\s*(\S+)\s*$/.exec(line);
    if (match) versions.set(match[1], match[2]);
  }
  return versions;
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function outArgument() {
  const index = process.argv.indexOf('--out');
  return resolve(index >= 0 ? process.argv[index + 1] : process.cwd());
}

build(protocolDir);
build(kitDir);

const stage = mkdtempSync(join(tmpdir(), 'mmp-provider-kit-'));
try {
  const dist = join(stage, 'dist');
  cpSync(join(kitDir, 'dist'), dist, { recursive: true });
  cpSync(join(protocolDir, 'dist'), join(dist, 'protocol'), { recursive: true });
  // The source maps point at sources that do not ship.
  for (const map of filesUnder(dist).filter((f) => f.endsWith('.map'))) rmSync(map);
  // Point the kit's own files (JavaScript and declarations) at the protocol beside them.
  for (const file of filesUnder(dist).filter((f) => !f.startsWith(join(dist, 'protocol')))) {
    const target = relative(dirname(file), join(dist, 'protocol', 'index.js')).replaceAll('\\', '/');
    const specifier = target.startsWith('.') ? target : `./${target}`;
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(/(['"])@mmp\/protocol\1/g, `$1${specifier}$1`);
    if (rewritten !== text) writeFileSync(file, rewritten);
  }

  const example = readFileSync(join(kitDir, 'examples', 'webhook-adapter.ts'), 'utf8');
  const { outputText } = ts.transpileModule(example.replace("'../src/index.js'", "'@mmp/provider-kit'"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(join(stage, 'examples'));
  writeFileSync(join(stage, 'examples', 'webhook-adapter.js'), outputText);
  cpSync(join(kitDir, 'README.md'), join(stage, 'README.md'));

  const kit = JSON.parse(readFileSync(join(kitDir, 'package.json'), 'utf8'));
  const catalog = catalogVersions();
  const dependencies = Object.fromEntries(
    runtimeDependencies().map((name) => {
      const version = catalog.get(name);
      if (!version) throw new Error(`${name} is not in the pnpm catalog`);
      return [name, version];
    }),
  );
  const manifest = {
    name: kit.name,
    version: kit.version,
    description: 'Speak protocol v1 with the Mobile Money Payments service from your own adapter',
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './example': './examples/webhook-adapter.js',
    },
    files: ['dist', 'examples', 'README.md'],
    engines: { node: '>=20' },
    dependencies,
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const out = outArgument();
  mkdirSync(out, { recursive: true });
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: stage,
    encoding: 'utf8',
  });
  const [{ filename }] = JSON.parse(packed);
  process.stdout.write(`${join(out, filename)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
