#!/usr/bin/env node
// A service's build runs this after tsc, from the service's folder: it bundles dist/main.js
// and everything it imports into dist/bundle/, which is what `pnpm start`, the images and
// the bench run (docs/decisions.md, "Services run from a bundle").
//
// One module instead of hundreds saves each process the per-file cost of Node's loader and
// about half of the source text V8 keeps in its heap (whitespace and syntax minified;
// names kept, so stack traces still read). Left outside, loaded from node_modules, are the
// packages listed in EXTERNAL: each finds files beside itself at run time or is loaded
// only on demand, and each is a dependency of every service that uses it, so it resolves
// from the service's own folder as from its image.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const EXTERNAL = [
  // a native addon, found by path beside its package
  'better-sqlite3',
  // loaded only when MONGO_URL is set
  'mongodb',
  // serves its own static files from its folder (the gateway's /docs)
  '@fastify/swagger-ui',
  // loaded only when RATE_LIMIT_REDIS_URL is set (the gateway)
  'ioredis',
  // loaded by protocol's phone.ts through createRequire, which a bundler does not follow
  'libphonenumber-js',
  // loaded on the first call out (outbound.ts); a chunk made of a CommonJS package exports
  // only its default, where Node's own loader gives its named exports too
  'undici',
];

// Left out of every bundle, though a package in it requires them: a bundle's source stays in
// the heap whether it runs or not. Fastify requires its default schema compilers (Ajv and
// fast-json-stringify, with what they use some 430 kB) only for an app built without a
// schemaController, and each Fastify app of the gateway, the one service with Fastify, is
// given one that refuses them (services/gateway/src/http/schema-controller.ts).
const LEFT_OUT = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];
const leaveOut = {
  name: 'leave-out',
  setup(bundler) {
    const filter = new RegExp(`^(${LEFT_OUT.join('|')})$`);
    bundler.onResolve({ filter }, ({ path }) => ({ path, namespace: 'left-out' }));
    bundler.onLoad({ filter: /.*/, namespace: 'left-out' }, ({ path }) => ({
      contents: `throw new Error(${JSON.stringify(`${path} is left out of this bundle (scripts/bundle-service.mjs): give Fastify a schemaController`)});`,
      loader: 'js',
    }));
  },
};

// Chunks are named by their content: the last build's would stay beside the new ones.
rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: ['dist/main.js'],
  outdir: 'dist/bundle',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Code behind a dynamic import (the MongoDB adapter) stays in its own chunk, loaded when
  // first used, as it was before bundling.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  external: EXTERNAL,
  plugins: [leaveOut],
  // The CommonJS packages inside the bundle call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// A dynamic import of a CommonJS package becomes a chunk that exports only its default,
// where Node's own loader gives its named exports too: such a package stays outside.
const { name, dependencies = {} } = JSON.parse(readFileSync('package.json', 'utf8'));
const files = readdirSync('dist/bundle');
const output = files.map((file) => readFileSync(`dist/bundle/${file}`, 'utf8'));
const commonJsChunks = files.filter((file, i) => /export default require_\w+\(\);$/m.test(output[i]));
if (commonJsChunks.length > 0) {
  console.error(
    `${name}: ${commonJsChunks.join(', ')}: a CommonJS package loaded by import() became a chunk; list it in EXTERNAL`,
  );
  process.exit(1);
}

// An external the bundle loads but the service does not depend on resolves here, where the
// workspace hoists it, and fails in the image: refused at build time instead.
const undeclared = EXTERNAL.filter(
  (external) => !(external in dependencies) && output.some((code) => code.includes(`"${external}"`)),
);
if (undeclared.length > 0) {
  console.error(`${name}: its bundle loads ${undeclared.join(', ')}, which are not among its dependencies`);
  process.exit(1);
}
