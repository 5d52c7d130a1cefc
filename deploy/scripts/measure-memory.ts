// Resident memory of every packaged service, idle and under a small load, for the resource
// requests and limits of the manifests (docs/operations.md keeps the numbers):
//   pnpm --filter @mmp/deploy measure-memory
// Packages every service, starts the packaged system on the local NATS (embedded store),
// lets it settle, then runs MEASURE_LOAD_S seconds (default 30) of payments created, paid on
// the hosted page by a sandbox number that succeeds, and read back, by 4 concurrent clients.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSystem } from '@mmp/platform/testing';
import { packageServices, startPackagedSystem } from '../src/packaged.js';
import { SERVICES } from '../src/services.js';

const LOAD_S = Number(process.env.MEASURE_LOAD_S ?? 30);
const SETTLE_MS = 15_000;
const CLIENTS = 4;

const target = mkdtempSync(join(tmpdir(), 'mmp-measure-'));
const system = createTestSystem('measure');
const names = SERVICES.map((service) => service.name);
await packageServices(target, names);
const { gatewayUrl, adminToken, running } = await startPackagedSystem(target, system, names, {
  RATE_LIMIT_KEY_MAX: '1000000',
  RATE_LIMIT_IP_MAX: '1000000',
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

try {
  await Promise.all(running.map((service) => service.waitReady(60_000)));
  console.log('every service ready; settling');
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const idle = new Map(running.map((service) => [service.service, service.memory().rssMiB]));

  const project = (await call('POST', '/v1/admin/projects', adminToken, { name: 'measure' })) as {
    keys: { kind: string; livemode: boolean; key: string }[];
  };
  const key = project.keys.find((k) => k.kind === 'secret' && !k.livemode)!.key;
  console.log(`loading for ${LOAD_S} s`);
  const until = Date.now() + LOAD_S * 1000;
  let payments = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (Date.now() < until) {
        const payment = (await call('POST', '/v1/payments', key, {
          amount: 5000,
          description: 'measure',
          reference: `m-${client}-${payments}-${Date.now()}`,
        })) as { token: string; paymentUrl: string };
        const session = new URL(payment.paymentUrl).pathname.split('/').pop()!;
        await (await fetch(payment.paymentUrl)).text();
        await call('POST', `/v1/checkout/sessions/${session}/pay`, '', {
          paymentMethod: 'ORANGE_MONEY',
          phone: '+237690000001',
        });
        await call('GET', `/v1/payments/${payment.token}`, key);
        payments++;
      }
    }),
  );
  console.log(`\n${payments} payments created, paid and read in ${LOAD_S} s by ${CLIENTS} clients\n`);
  console.log('| service | idle RSS MiB | peak RSS under load MiB |');
  console.log('| --- | --: | --: |');
  for (const service of running) {
    console.log(`| ${service.service} | ${idle.get(service.service)} | ${service.memory().peakMiB} |`);
  }
} finally {
  await Promise.all(running.map((service) => service.stop()));
  await system.cleanup();
  rmSync(target, { recursive: true, force: true });
}
