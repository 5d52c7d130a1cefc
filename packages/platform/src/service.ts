import type { z } from 'zod';
import type { Registry } from 'prom-client';
import { EVENT_CONTRACTS, pingOperation, type EventContract, type ServiceName } from '@mmp/protocol';
import { loadEnvOrExit, parseEnv, type BaseEnv } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createNotices, type Notices } from './notices.js';
import { connectNats, createNaming, watchConnection, type Naming, type NatsConnection } from './nats.js';
import { createBusClient, operation, serveOperations, type BusClient, type ServedOperation } from './rpc.js';
import {
  consumeEvents,
  createEventPublisher,
  provisionEventsStream,
  replayEvents,
  type ConsumerSpec,
  type EventConsumer,
  type HandleResult,
  type ReceivedEvent,
} from './events.js';
import { createIdempotentConsumer } from './idempotent.js';
import { watchIdleMemory } from './idle-memory.js';
import { createOutbox, ensureOutboxIndexes, type Outbox, type OutboxCollection } from './outbox.js';
import { startLoop, type Loop, type LoopSpec } from './loops.js';
import { createMetricsRegistry } from './metrics.js';
import { startOpsServer } from './ops-server.js';
import { createOutboundHttp, type OutboundHttp, type Resolve } from './outbound.js';
import { createOperationOutcomes, type OutcomeRecord } from './outcomes.js';
import { createSecretBox } from './secrets.js';
import { openStore } from './store/open.js';
import type { Store } from './store/port.js';

/**
 * What a service's `setup` receives: its configuration and infrastructure, and the one
 * place to declare what it runs. The kit starts what was declared after `setup` returns
 * (background work, then consumers, then operations, so nothing answers before everything
 * behind it runs), reports each in readiness and metrics, and stops them in the reverse
 * order: intake first, the connection and the store last.
 */
export type ServiceKit<E extends BaseEnv = BaseEnv> = {
  readonly name: ServiceName;
  readonly env: E;
  readonly log: Logger;
  readonly store: Store;
  readonly metrics: Registry;
  /** Typed requests to other services' operations. */
  readonly bus: BusClient;
  /** Operations this service answers, each with its contract (`operation(contract, handler)`). */
  serve(...operations: ServedOperation[]): void;
  /** A durable consumer of events, each with its contract. */
  consume<Cs extends readonly EventContract[]>(spec: ConsumerSpec<Cs>): void;
  /** A background loop; the handle may `kick()` it once the service runs. */
  loop(spec: LoopSpec): Pick<Loop, 'kick'>;
  /**
   * The service's outbox over its aggregate collections (once per service): their relay
   * index is created at start and the relay runs as a loop.
   */
  outbox(collections: readonly OutboxCollection[], options?: { relayIntervalMs?: number }): Outbox;
  /** Every stored event of `events` from the first, for rebuilding a projection. */
  replay<Cs extends readonly EventContract[]>(
    events: Cs,
    handle: (event: ReceivedEvent<Cs[number]>) => Promise<void>,
  ): Promise<number>;
  /** A resource to release at stop (an HTTP agent, a listener), after the work using it. */
  onStop(stop: () => Promise<void>): void;
  /**
   * Calls out under the outbound rules (loopback only with ALLOW_HTTP_LOOPBACK_ENDPOINTS),
   * closed at stop. `resolve` is a test's own name resolution, never the outside DNS.
   */
  outboundHttp(options?: { resolve?: Resolve }): OutboundHttp;
  /** An extra readiness check, e.g. an HTTP listener of the service's own. */
  readiness(name: string, check: () => Promise<boolean>): void;
  /** Notices on core NATS among replicas and to other services (see `Notices`). */
  readonly notices: Notices;
  /**
   * Aborted when the service starts to stop, before it waits for the requests it is
   * answering: an operation that holds a request open (a long poll) answers at once.
   */
  readonly stopping: AbortSignal;
};

export type ServiceDefinition<S extends z.ZodType<BaseEnv>> = {
  name: ServiceName;
  version?: string;
  env: S;
  /**
   * The events this service may publish; by default every contract naming it as producer.
   * Publishing any other type throws: an event leaves a service only under its contract.
   */
  events?: readonly EventContract[];
  setup(kit: ServiceKit<z.infer<S>>): Promise<void>;
};

/** What a running service shows its tests and its `main.ts`. */
export type ServiceContext<E extends BaseEnv = BaseEnv> = {
  name: ServiceName;
  env: E;
  log: Logger;
  nc: NatsConnection;
  naming: Naming;
  store: Store;
  metrics: Registry;
  bus: BusClient;
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

/** Something the kit started and will stop. */
type Started = { stop(): Promise<void> };
/** A declared part, started after `setup`: background work, consumers, then operations. */
type Part = { phase: 0 | 1; start(): Promise<Started> };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A handler that runs once per event id, remembered in the service's `processed_events`. */
async function deduplicated<E extends { id: string }>(
  store: Store,
  durable: string,
  handle: (event: E) => Promise<HandleResult>,
): Promise<(event: E) => Promise<HandleResult>> {
  const processed = createIdempotentConsumer(store.collection('processed_events'), durable);
  await processed.ensureIndexes();
  return (event) => processed.once(event.id, () => handle(event));
}

/** Event types a service may publish: its declared events, else the contracts naming it as producer. */
function producedTypes(service: ServiceName, declared?: readonly EventContract[]): Set<string> {
  const events = declared ?? EVENT_CONTRACTS.filter((event) => event.producer === service);
  for (const event of events) {
    if (event.producer !== service)
      throw new Error(`${service} cannot publish ${event.type}: its producer is ${event.producer}`);
  }
  return new Set(events.map((event) => event.type));
}

/**
 * Boots a service: config, logger, NATS, the EVENTS stream, its store, then its `setup`,
 * then what setup declared, plus `ping` and the ops server. Used by each `main.ts` and,
 * in-process, by tests.
 */
export async function startService<S extends z.ZodType<BaseEnv>>(
  definition: ServiceDefinition<S>,
  rawEnv: Record<string, string | undefined>,
  options: StartServiceOptions = {},
): Promise<RunningService<z.infer<S>>> {
  const env = parseEnv(definition.env, rawEnv) as z.infer<S>;
  const { name } = definition;
  const log = createLogger({ service: name, level: env.LOG_LEVEL, destination: options.logDestination });
  const naming = createNaming(env.NATS_PREFIX);
  // Checked before anything is opened: a refusal here leaves no connection or store behind.
  const produced = producedTypes(name, definition.events);
  const nc = await connectNats({
    url: env.NATS_URL,
    name,
    log,
    auth: { user: env.NATS_USER, password: env.NATS_PASSWORD, credsFile: env.NATS_CREDS },
  });
  const store =
    options.store ??
    (await openStore({
      mongoUrl: env.MONGO_URL,
      mongoDbPrefix: env.MONGO_DB_PREFIX,
      dataDir: env.DATA_DIR,
      service: name,
    }));
  await provisionEventsStream(nc, naming, { replicas: env.EVENTS_STREAM_REPLICAS });
  const metrics = createMetricsRegistry(name);
  const connection = watchConnection(nc, metrics);
  const bus = createBusClient({
    nc,
    naming,
    caller: name,
    defaultTimeoutMs: env.REQUEST_TIMEOUT_MS,
    log,
    metrics,
  });
  const publish = createEventPublisher(nc, naming, {
    service: name,
    types: produced,
  });

  const stopping = new AbortController();
  const parts: Part[] = [];
  const operations: ServedOperation[] = [];
  const consumers: EventConsumer[] = [];
  const readiness: Record<string, () => Promise<boolean>> = {};
  let outboxDeclared = false;
  let closeOutbox = async (): Promise<void> => undefined;
  const declareLoop = (spec: LoopSpec) => {
    let loop: Loop | undefined;
    parts.push({
      phase: 0,
      start: async () => (loop = startLoop({ ...spec, log, metrics })),
    });
    return { kick: () => loop?.kick() };
  };
  const kit: ServiceKit<z.infer<S>> = {
    name,
    env,
    log,
    store,
    metrics,
    bus,
    serve: (...served) => void operations.push(...served),
    consume(spec) {
      parts.push({
        phase: 1,
        start: async () => {
          const handle = spec.dedupe ? await deduplicated(store, spec.durable, spec.handle) : spec.handle;
          const consumer = await consumeEvents({ ...spec, handle, nc, naming, service: name, log, metrics });
          consumers.push(consumer);
          return consumer;
        },
      });
    },
    loop: declareLoop,
    outbox(collections, { relayIntervalMs = 2000 } = {}) {
      if (outboxDeclared)
        throw new Error(`${name} declares its outbox twice; give it every collection at once`);
      outboxDeclared = true;
      const outbox = createOutbox({ publish, log, metrics, collections });
      closeOutbox = outbox.close;
      parts.push({
        phase: 0,
        start: async () => {
          await ensureOutboxIndexes(collections);
          return { stop: async () => undefined };
        },
      });
      // relayOnce counts its own passes, failures included; the loop needs no metrics.
      parts.push({
        phase: 0,
        start: async () =>
          startLoop({ name: 'outbox_relay', intervalMs: relayIntervalMs, log, pass: outbox.relayOnce }),
      });
      return outbox;
    },
    replay: (events, handle) => replayEvents({ nc, naming, service: name, log, events, handle }),
    onStop: (stop) => void parts.push({ phase: 0, start: async () => ({ stop }) }),
    outboundHttp({ resolve } = {}) {
      const http = createOutboundHttp({ allowLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS, resolve });
      kit.onStop(() => http.close());
      return http;
    },
    readiness: (check, run) => void (readiness[check] = run),
    stopping: stopping.signal,
    notices: createNotices({
      nc,
      naming,
      service: name,
      log,
      onStart: (start) => void parts.push({ phase: 0, start }),
    }),
  };
  const started: Started[] = [];
  const stopStarted = async () => {
    for (const part of started.reverse()) await part.stop();
    // Last: every part that writes through the outbox has stopped.
    await closeOutbox();
  };
  try {
    await definition.setup(kit);
    for (const phase of [0, 1] as const) {
      for (const part of parts.filter((candidate) => candidate.phase === phase))
        started.push(await part.start());
    }
    // Services that hold secrets have a server key; their replies may show one once.
    const secretKey = secretKeyOf(rawEnv);
    const outcomes = createOperationOutcomes(store.collection<OutcomeRecord>('operation_outcomes'), {
      box: secretKey ? createSecretBox(secretKey) : undefined,
    });
    await outcomes.ensureIndexes();
    started.push(
      await serveOperations({
        outcomes,
        nc,
        naming,
        service: name,
        version: definition.version ?? '0.1.0',
        log,
        metrics,
        operations: [
          operation(pingOperation(name), async () => ({
            service: name,
            status: 'ok' as const,
            store: store.kind,
          })),
          ...operations,
        ],
      }),
    );
  } catch (error) {
    // A part that could not start: what did start stops, nothing is left half running.
    stopping.abort();
    await stopStarted().catch(() => undefined);
    await nc.close().catch(() => undefined);
    if (!options.store) await store.close().catch(() => undefined);
    throw error;
  }
  let draining = false;
  const ops = await startOpsServer({
    service: name,
    host: env.OPS_HOST,
    port: env.OPS_PORT,
    registry: metrics,
    checks: {
      nats: async () => connection.connected(),
      store: () => store.ping(),
      consumers: async () => consumers.every((consumer) => consumer.running()),
      ...readiness,
    },
    draining: () => draining,
  });
  log.info({ opsPort: ops.port, store: store.kind, prefix: naming.prefix || undefined }, 'service started');

  let stopped: Promise<void> | undefined;
  function stop() {
    draining = true;
    stopping.abort();
    stopped ??= (async () => {
      // Intake first (requests answered meanwhile still get their answer), then consumers
      // and background work, then the connection, which stays up until they are done.
      await stopStarted();
      await nc.drain().catch(() => undefined);
      if (!options.store) await store.close();
      await ops.close();
      log.info('service stopped');
    })();
    return stopped;
  }
  return {
    context: { name, env, log, nc, naming, store, metrics, bus },
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

/** SERVICE_SECRET_KEY, for the services whose configuration has one. */
function secretKeyOf(rawEnv: Record<string, string | undefined>): string | undefined {
  const key = rawEnv.SERVICE_SECRET_KEY;
  return key && key.length >= 32 ? key : undefined;
}

/** The whole `main.ts` of a service: start, then stop cleanly on SIGTERM or SIGINT. */
export function runService<S extends z.ZodType<BaseEnv>>(definition: ServiceDefinition<S>): void {
  // Fails fast, naming every bad variable, before anything connects.
  loadEnvOrExit(definition.env);
  startService(definition, process.env).then(
    (running) => {
      const { log, env } = running.context;
      const stopIdleWatch = watchIdleMemory();
      const shutdown = (signal: string) => {
        log.info({ signal }, 'shutting down');
        stopIdleWatch();
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
