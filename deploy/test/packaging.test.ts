import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSystem, eventually, startProviderEndpoint } from '@mmp/platform/testing';
import { SANDBOX_NUMBERS } from '@mmp/protocol';
import { packageServices, REPO_ROOT, startPackagedSystem, type PackagedService } from '../src/packaged.js';
import { SERVICES } from '../src/services.js';

/**
 * What goes into each image really runs: the images' own packaging step copies every service
 * with its production dependencies into a folder of its own, and each is started from there,
 * as the image starts it, against the real NATS. The sandbox provider registers through the
 * gateway, so the whole packaged system comes up together, and a payment goes through it
 * to the merchant's webhook: each service runs from its bundle, and what a bundle gets
 * wrong (a package loaded on first use, a file read beside a module) shows only there.
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

async function call(url: string, body: unknown, key?: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The sandbox's number that pays at once. */
const SUCCESS_NUMBER = SANDBOX_NUMBERS.find((number) => number.outcome === 'success')!.phone;

/**
 * A merchant's first payment, paid on the hosted page's API with the sandbox's success
 * number (a phone parsed, an order pulled by the sandbox, a settlement posted), until the
 * merchant's endpoint receives `transaction.completed` (an HTTP call out). Resolves with it.
 */
async function payThroughToWebhook(gatewayUrl: string, adminToken: string): Promise<unknown> {
  const merchant = await startProviderEndpoint();
  merchant.on('/webhooks', () => ({ status: 200 }));
  try {
    const project = (await call(`${gatewayUrl}/v1/admin/projects`, { name: 'packaged' }, adminToken)) as {
      keys: { kind: string; livemode: boolean; key: string }[];
    };
    const key = project.keys.find((k) => k.kind === 'secret' && !k.livemode)?.key;
    await call(
      `${gatewayUrl}/v1/webhook-endpoints`,
      { url: merchant.url('/webhooks'), enabledEvents: ['transaction.completed'] },
      key,
    );
    const payment = await call(
      `${gatewayUrl}/v1/payments`,
      { amount: 5000, currency: 'XAF', description: 'Packaged order', reference: 'packaged-1' },
      key,
    );
    const session = new URL(payment.paymentUrl as string).pathname.split('/').pop();
    await call(`${gatewayUrl}/v1/checkout/sessions/${session}/pay`, {
      paymentMethod: 'ORANGE_MONEY',
      phone: SUCCESS_NUMBER,
    });
    const delivery = await eventually(async () => merchant.callsTo('/webhooks')[0], 30_000);
    return delivery.body;
  } finally {
    await merchant.close();
  }
}

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

  it('start from their folders, become ready, take a payment through to its webhook, and stop cleanly', async () => {
    const started = await startPackagedSystem(
      target,
      system,
      SERVICES.map((service) => service.name),
      // The merchant's receiver below listens on loopback.
      { ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    );
    running.push(...started.running);
    await Promise.all(running.map((service) => service.waitReady(45_000)));
    const health = await fetch(`${started.gatewayUrl}/v1/health`);
    expect(health.status).toBe(200);
    // The reference page is an app of its own, built on first use from a chunk of the bundle
    // that Fastify's default compilers are left out of (scripts/bundle-service.mjs).
    const page = await fetch(`${started.gatewayUrl}/docs/static/swagger-ui.css`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('.swagger-ui');
    expect((await fetch(`${started.gatewayUrl}/v1/openapi.json`)).status).toBe(200);

    const completed = await payThroughToWebhook(started.gatewayUrl, started.adminToken);
    expect(completed).toMatchObject({ type: 'transaction.completed', data: { status: 'COMPLETED' } });

    const exits = await Promise.all([...running].reverse().map((service) => service.stop()));
    expect(exits).toEqual(running.map(() => 0));
  }, 120_000);
});
