import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSystem } from '@mmp/platform/testing';
import { packageServices, REPO_ROOT, startPackagedSystem, type PackagedService } from '../src/packaged.js';
import { SERVICES } from '../src/services.js';

/**
 * What goes into each image really runs: the images' own packaging step copies every service
 * with its production dependencies into a folder of its own, and each is started from there,
 * as the image starts it, against the real NATS. The sandbox provider registers through the
 * gateway, so the whole packaged system comes up together.
 */
const target = mkdtempSync(join(tmpdir(), 'mmp-packaged-'));
const system = createTestSystem('pkg');
const running: PackagedService[] = [];
let packagingOutput = '';

beforeAll(async () => {
  packagingOutput = await packageServices(
    target,
    SERVICES.map((service) => service.name),
  );
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((service) => service.stop()));
  await system.cleanup();
  rmSync(target, { recursive: true, force: true });
});

const manifestOf = (service: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'services', service, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };

/** The packages linked at the top of a packaged node_modules: what the service itself requires. */
function topLevelPackages(folder: string): string[] {
  const modules = join(folder, 'node_modules');
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry],
    )
    .sort();
}

/** Build and test tools: none of them, nor anything they bring, belongs in an image. */
const TOOLS =
  /^(typescript|vitest|@vitest\+.*|vite|tsx|esbuild|testcontainers|@testcontainers\+.*|playwright-core)@/m;

describe('packaged services', () => {
  it('hold only dist/, package.json and production dependencies: no source, tests, dev tools or data', () => {
    for (const { name } of SERVICES) {
      const folder = join(target, name);
      const top = readdirSync(folder).filter((entry) => entry !== 'public');
      expect(top.sort(), `${name}: ${packagingOutput.slice(-2000)}`).toEqual([
        'dist',
        'node_modules',
        'package.json',
      ]);
      // Its production dependencies and nothing else (no devDependencies) at the top...
      expect(topLevelPackages(folder)).toEqual(Object.keys(manifestOf(name).dependencies ?? {}).sort());
      // ...and no build or test tool anywhere below.
      const installed = readdirSync(join(folder, 'node_modules', '.pnpm')).join('\n');
      expect(installed, `${name} carries a build or test tool`).not.toMatch(TOOLS);
      expect(existsSync(join(folder, '.data')), `${name} carries a data folder`).toBe(false);
    }
  });

  it('start from their folders, become ready on their ops port, and stop cleanly on SIGTERM', async () => {
    const started = await startPackagedSystem(
      target,
      system,
      SERVICES.map((service) => service.name),
    );
    running.push(...started.running);
    await Promise.all(running.map((service) => service.waitReady(45_000)));
    const health = await fetch(`${started.gatewayUrl}/v1/health`);
    expect(health.status).toBe(200);

    const exits = await Promise.all([...running].reverse().map((service) => service.stop()));
    expect(exits).toEqual(running.map(() => 0));
  }, 120_000);
});
