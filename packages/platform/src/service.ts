import type { z } from 'zod';
import type { Registry } from 'prom-client';
import type { Svcm } from '@nats-io/services';
import type { ServiceName } from '@mmp/protocol';
import { loadEnvOrExit, parseEnv, type BaseEnv } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { connectNats, createNaming, type Naming, type NatsConnection } from './nats.js';
import { createServiceClient, serveOperations, type Operation, type ServiceClient } from './rpc.js';
import { createEventPublisher, provisionEventsStream, type EventPublisher } from './events.js';
import { createMetricsRegistry, startOpsServer } from './ops-server.js';
import { openStore } from './store/open.js';
import type { Store } from './store/port.js';

type ServiceHandle = Awaited<ReturnType<Svcm['add']>>;

/** Everything a service's wiring receives; it builds its store, domain and handlers from this. */
export type ServiceContext<E extends BaseEnv> = {
  name: ServiceName;
  env: E;
  log: Logger;
  nc: NatsConnection;
  naming: Naming;
  store: Store;
  publish: EventPublisher;
  services: ServiceClient;
  metrics: Registry;
};

export type ServiceParts = {
  operations?: Record<string, Operation>;
  /** Stops background work (consumers, timers, relays); called before NATS drains. */
  stop?: () => Promise<void>;
  /** Extra readiness checks, e.g. an HTTP listener of the service's own. */
  readiness?: Record<string, () => Promise<boolean>>;
};

export type ServiceDefinition<S extends z.ZodType<BaseEnv>> = {
  name: ServiceName;
  version?: string;
  env: S;
  start(context: ServiceContext<z.infer<S>>): Promise<ServiceParts>;
};

export type RunningService<E extends BaseEnv = BaseEnv> = {
  context: ServiceContext<E>;
  opsPort: number;
  stop(): Promise<void>;
};

/**
 * Boots a service: config, logger, NATS, the EVENTS stream, its store, its operations
 * (plus `ping`) and the ops server. Used by each `main.ts` and, in-process, by tests.
 */
export async function startService<S extends z.ZodType<BaseEnv>>(
  definition: ServiceDefinition<S>,
  rawEnv: Record<string, string | undefined>,
  options: { logDestination?: NodeJS.WritableStream } = {},
): Promise<RunningService<z.infer<S>>> {
  const env = parseEnv(definition.env, rawEnv) as z.infer<S>;
  const log = createLogger({ service: definition.name, level: env.LOG_LEVEL, destination: options.logDestination });
  const naming = createNaming(env.NATS_PREFIX);
  const nc = await connectNats({ url: env.NATS_URL, name: definition.name, log });
  const store = await openStore({ mongoUrl: env.MONGO_URL, dataDir: env.DATA_DIR, service: definition.name });
  await provisionEventsStream(nc, naming);
  const metrics = createMetricsRegistry(definition.name);
  const context: ServiceContext<z.infer<S>> = {
    name: definition.name,
    env,
    log,
    nc,
    naming,
    store,
    publish: createEventPublisher(nc, naming),
    services: createServiceClient({ nc, naming, caller: definition.name, defaultTimeoutMs: env.REQUEST_TIMEOUT_MS }),
    metrics,
  };
  const parts = await definition.start(context);
  const handle: ServiceHandle = await serveOperations({
    nc,
    naming,
    service: definition.name,
    version: definition.version ?? '0.1.0',
    log,
    operations: {
      ping: async () => ({ status: 200, body: { service: definition.name, status: 'ok', store: store.kind } }),
      ...parts.operations,
    },
  });
  const ops = await startOpsServer({
    service: definition.name,
    host: env.OPS_HOST,
    port: env.OPS_PORT,
    registry: metrics,
    checks: { nats: async () => !nc.isClosed(), store: () => store.ping(), ...parts.readiness },
  });
  log.info({ opsPort: ops.port, store: store.kind, prefix: naming.prefix || undefined }, 'service started');

  let stopping: Promise<void> | undefined;
  return {
    context,
    opsPort: ops.port,
    stop() {
      stopping ??= (async () => {
        await handle.stop().catch(() => undefined);
        await parts.stop?.();
        await nc.drain().catch(() => undefined);
        await store.close();
        await ops.app.close();
        log.info('service stopped');
      })();
      return stopping;
    },
  };
}

/** The whole `main.ts` of a service: start, then stop cleanly on SIGTERM or SIGINT. */
export function runService<S extends z.ZodType<BaseEnv>>(definition: ServiceDefinition<S>): void {
  // Fails fast, naming every bad variable, before anything connects.
  loadEnvOrExit(definition.env);
  startService(definition, process.env).then(
    (running) => {
      const shutdown = (signal: string) => {
        running.context.log.info({ signal }, 'shutting down');
        running.stop().then(
          () => process.exit(0),
          (error) => {
            running.context.log.error({ err: error }, 'unclean shutdown');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (error) => {
      console.error(`${definition.name} failed to start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
