import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  connectNats,
  createLogger,
  openStore,
  startService,
  type NatsConnection,
  type RunningService,
  type ServiceDefinition,
} from '@mmp/platform';
import type { ServiceName } from '@mmp/protocol';
import {
  consumed,
  createTestSystem,
  eventually,
  freePort,
  spawnServiceProcess,
  type ChildService,
} from '@mmp/platform/testing';
import { gatewayService } from '@mmp/gateway';
import { paymentsService } from '@mmp/payments';
import { linksCheckoutService } from '@mmp/links-checkout';
import { customersService } from '@mmp/customers';
import { providerRouterService } from '@mmp/provider-router';
import { providerDeliveryService } from '@mmp/provider-delivery';
import { certificationRunnerService } from '@mmp/certification-runner';
import { sandboxProviderService } from '@mmp/sandbox-provider';

export type { ChildService };

export type ProjectKeys = {
  id: string;
  testSecretKey: string;
  testPublishableKey: string;
  liveSecretKey: string;
  livePublishableKey: string;
};

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** In start order: core services, the gateway, then the sandbox provider (it registers through the gateway). */
const DEFINITIONS = [
  paymentsService,
  linksCheckoutService,
  customersService,
  providerRouterService,
  providerDeliveryService,
  certificationRunnerService,
  gatewayService,
  sandboxProviderService,
] as unknown as ServiceDefinition<never>[];

/**
 * Set by the e2e run's global setup (`log-scan.global.ts`): every service of every system
 * writes its debug logs there, and the run fails if any of it holds a key or a secret.
 */
const RUN_LOG_DIR = process.env.MMP_E2E_LOG_DIR;

/**
 * `E2E_STORE=mongodb` runs every system on the MongoDB at MONGO_URL instead of the embedded
 * store, each system in databases of its own (`<its NATS prefix>_<service>`).
 */
function storeEnv(prefix: string): Record<string, string> {
  const store = process.env.E2E_STORE ?? 'embedded';
  if (store === 'embedded') return {};
  if (store !== 'mongodb') throw new Error(`E2E_STORE is embedded or mongodb, not ${store}`);
  if (!process.env.MONGO_URL) throw new Error('E2E_STORE=mongodb needs MONGO_URL');
  return { MONGO_URL: process.env.MONGO_URL, MONGO_DB_PREFIX: prefix };
}

/**
 * The whole system in this process, as `pnpm start` runs it but isolated: its own NATS
 * prefix, data folder and gateway port. Core services start first, the gateway next, and
 * the sandbox provider last, since it registers itself through the gateway's public API.
 */
export async function startSystem(
  options: {
    env?: Record<string, string>;
    external?: ServiceName[];
    logDestination?: NodeJS.WritableStream;
  } = {},
) {
  const external = new Set<string>(options.external ?? []);
  const system = createTestSystem('e2e');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    ...system.env,
    ADMIN_TOKEN: adminToken,
    GATEWAY_PORT: String(port),
    GATEWAY_HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    GATEWAY_URL: baseUrl,
    // Providers' adapters, merchants' receivers and logos of the tests listen on loopback.
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
    SANDBOX_POLL_MS: '200',
    SANDBOX_DELAY_MS: '200',
    // Tests poll fast; the limits themselves are tested in the gateway's own suite.
    RATE_LIMIT_KEY_MAX: '100000',
    RATE_LIMIT_IP_MAX: '100000',
    ...storeEnv(system.prefix),
    ...(RUN_LOG_DIR && !options.logDestination ? { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'debug' } : {}),
    ...options.env,
  };
  const logFile = RUN_LOG_DIR && join(RUN_LOG_DIR, `${system.prefix}.log`);
  const runLog = logFile && !options.logDestination ? createWriteStream(logFile, { flags: 'a' }) : undefined;
  const logDestination = options.logDestination ?? runLog;
  const running: RunningService[] = [];
  const start = async (definition: ServiceDefinition<never>) => {
    running.push((await startService(definition, env, { logDestination })) as RunningService);
  };
  try {
    for (const definition of DEFINITIONS) {
      if (!external.has(definition.name)) await start(definition);
    }
    // With services left out, health stays red until the test starts them;
    // the gateway listening is what matters then, unless the test runs the gateway too.
    if (!external.has('gateway'))
      await eventually(async () => {
        const response = await fetch(`${baseUrl}/v1/health`);
        return response.ok || external.size > 0;
      }, 20_000);
  } catch (error) {
    await Promise.allSettled(running.reverse().map((service) => service.stop()));
    runLog?.end();
    await system.cleanup();
    throw error;
  }

  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  const children = new Set<ChildService>();
  let nc: NatsConnection | undefined;
  const probe = async () =>
    (nc ??= await connectNats({
      url: env.NATS_URL!,
      name: 'e2e-probe',
      log: createLogger({ service: 'e2e-probe', level: 'silent' }),
    }));

  /**
   * Waits until the services that show merchants have their copy of what the gateway last
   * announced (`project.updated`), so a test reads a new project's name at once. A service
   * left out of this system (started later by the test) reads it when it starts.
   */
  async function projectsKnown() {
    const connection = await probe();
    for (const durable of ['payments-projects', 'links-checkout-projects'])
      await consumed(connection, system.naming, durable, { orAbsent: true });
  }

  /**
   * Runs `name` as a child process with this system's environment (same NATS prefix and data
   * folder, so a restarted child finds what the killed one stored), for crash tests.
   */
  function spawnService(name: ServiceName, extraEnv: Record<string, string> = {}): ChildService {
    const handle = spawnServiceProcess({
      name,
      main: `services/${name}/src/main.ts`,
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, OPS_PORT: '0', OPS_HOST: '127.0.0.1', ...extraEnv },
      naming: system.naming,
      logFile: runLog ? logFile : undefined,
      nc: probe,
    });
    children.add(handle);
    void handle.exited.then(() => children.delete(handle));
    return handle;
  }

  return {
    baseUrl,
    adminToken,
    system,
    admin,
    spawnService,
    /** A service's store as the system's services open it (embedded folder or MongoDB database). */
    openStore: (service: ServiceName) =>
      openStore({
        mongoUrl: env.MONGO_URL || undefined,
        mongoDbPrefix: env.MONGO_DB_PREFIX,
        dataDir: env.DATA_DIR!,
        service,
      }),
    /** A project and its four keys; `extra` adds to the admin create body (e.g. `logoUrl`). */
    async createProject(name = 'Shop', extra: Record<string, unknown> = {}): Promise<ProjectKeys> {
      const project = await admin<{
        id: string;
        keys: { kind: 'secret' | 'publishable'; livemode: boolean; key: string }[];
      }>('POST', '/v1/admin/projects', { name, displayName: name, ...extra });
      await projectsKnown();
      const key = (kind: string, livemode: boolean) =>
        project.keys.find((k) => k.kind === kind && k.livemode === livemode)?.key ?? '';
      return {
        id: project.id,
        testSecretKey: key('secret', false),
        testPublishableKey: key('publishable', false),
        liveSecretKey: key('secret', true),
        livePublishableKey: key('publishable', true),
      };
    },
    async stop() {
      await Promise.all([...children].map((child) => child.kill()));
      await nc?.close().catch(() => undefined);
      for (const service of running.reverse()) await service.stop().catch(() => undefined);
      await new Promise<void>((resolve) => (runLog ? runLog.end(resolve) : resolve()));
      await system.cleanup();
    },
  };
}
export type RunningSystem = Awaited<ReturnType<typeof startSystem>>;
