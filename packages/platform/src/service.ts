import type { z } from 'zod';
import type { Registry } from 'prom-client';
import type { ServiceName } from '@mmp/protocol';
import { loadEnvOrExit, parseEnv, type BaseEnv } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { connectNats, createNaming, watchConnection, type Naming, type NatsConnection } from './nats.js';
import { createServiceClient, serveOperations, type Operation, type ServiceClient } from './rpc.js';
import { createEventPublisher, provisionEventsStream, type EventPublisher } from './events.js';
import { createMetricsRegistry } from './metrics.js';
import { startOpsServer } from './ops-server.js';
import { openStore } from './store/open.js';
import type { Store } from './store/port.js';

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
  /**
   * The graceful stop of SIGTERM: /readyz answers 503 at once while the service keeps
   * serving for SHUTDOWN_DELAY_MS (skipped with `delay: false`), then `stop()` gets
   * SHUTDOWN_TIMEOUT_MS. True when everything finished in time.
   */
  shutdown(options?: { delay?: boolean }): Promise<boolean>;
  /** Stops taking work, lets in-flight requests and event handlers finish, then closes. */
  stop(): Promise<void>;
};

export type StartServiceOptions = {
  logDestination?: NodeJS.WritableStream;
  /**
   * A store opened by the caller, shared and left open by `stop()`: tests run two replicas
   * of one service on one database in-process this way (the embedded store is one process
   * per folder, as a MongoDB database is shared by every replica).
   */
  store?: Store;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Boots a service: config, logger, NATS, the EVENTS stream, its store, its operations
 * (plus `ping`) and the ops server. Used by each `main.ts` and, in-process, by tests.
 */
export async function startService<S extends z.ZodType<BaseEnv>>(
  definition: ServiceDefinition<S>,
  rawEnv: Record<string, string | undefined>,
  options: StartServiceOptions = {},
): Promise<RunningService<z.infer<S>>> {
  const env = parseEnv(definition.env, rawEnv) as z.infer<S>;
  const log = createLogger({
    service: definition.name,
    level: env.LOG_LEVEL,
    destination: options.logDestination,
  });
  const naming = createNaming(env.NATS_PREFIX);
  const nc = await connectNats({ url: env.NATS_URL, name: definition.name, log });
  const store =
    options.store ??
    (await openStore({ mongoUrl: env.MONGO_URL, dataDir: env.DATA_DIR, service: definition.name }));
  await provisionEventsStream(nc, naming);
  const metrics = createMetricsRegistry(definition.name);
  const connection = watchConnection(nc, metrics);
  const context: ServiceContext<z.infer<S>> = {
    name: definition.name,
    env,
    log,
    nc,
    naming,
    store,
    publish: createEventPublisher(nc, naming),
    services: createServiceClient({
      nc,
      naming,
      caller: definition.name,
      defaultTimeoutMs: env.REQUEST_TIMEOUT_MS,
      metrics,
    }),
    metrics,
  };
  const parts = await definition.start(context);
  const served = await serveOperations({
    nc,
    naming,
    service: definition.name,
    version: definition.version ?? '0.1.0',
    log,
    metrics,
    operations: {
      ping: async () => ({
        status: 200,
        body: { service: definition.name, status: 'ok', store: store.kind },
      }),
      ...parts.operations,
    },
  });
  let draining = false;
  const ops = await startOpsServer({
    service: definition.name,
    host: env.OPS_HOST,
    port: env.OPS_PORT,
    registry: metrics,
    checks: {
      nats: async () => connection.connected(),
      store: () => store.ping(),
      consumers: async () => [...connection.consumers].every((consumer) => consumer.running()),
      ...parts.readiness,
    },
    draining: () => draining,
  });
  log.info({ opsPort: ops.port, store: store.kind, prefix: naming.prefix || undefined }, 'service started');

  let stopping: Promise<void> | undefined;
  function stop() {
    draining = true;
    stopping ??= (async () => {
      // Intake first (requests answered meanwhile still get their answer), then background
      // work, then the connection, which stays up until the in-flight work is done.
      await served.stop();
      await parts.stop?.();
      await nc.drain().catch(() => undefined);
      if (!options.store) await store.close();
      await ops.app.close();
      log.info('service stopped');
    })();
    return stopping;
  }
  return {
    context,
    opsPort: ops.port,
    stop,
    async shutdown({ delay = true } = {}) {
      draining = true;
      if (delay && env.SHUTDOWN_DELAY_MS > 0) {
        log.info({ delayMs: env.SHUTDOWN_DELAY_MS }, 'not ready; serving until the ingress lets go');
        await sleep(env.SHUTDOWN_DELAY_MS);
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), env.SHUTDOWN_TIMEOUT_MS);
      });
      try {
        return await Promise.race([stop().then(() => true as const), timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The whole `main.ts` of a service: start, then stop cleanly on SIGTERM or SIGINT. */
export function runService<S extends z.ZodType<BaseEnv>>(definition: ServiceDefinition<S>): void {
  // Fails fast, naming every bad variable, before anything connects.
  loadEnvOrExit(definition.env);
  startService(definition, process.env).then(
    (running) => {
      const { log, env } = running.context;
      const shutdown = (signal: string) => {
        log.info({ signal }, 'shutting down');
        // SIGINT comes from a terminal, where no ingress needs time to let go.
        running.shutdown({ delay: signal === 'SIGTERM' }).then(
          (clean) => {
            if (!clean)
              log.error(
                { timeoutMs: env.SHUTDOWN_TIMEOUT_MS },
                'shutdown timed out; unfinished work is redelivered or relayed later',
              );
            process.exit(clean ? 0 : 1);
          },
          (error) => {
            log.error({ err: error }, 'unclean shutdown');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (error) => {
      console.error(
        `${definition.name} failed to start: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(1);
    },
  );
}
