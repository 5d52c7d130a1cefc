import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';
import { gauge } from './metrics.js';

export type { NatsConnection };

/**
 * Names on the shared NATS server. Every subject, stream and durable consumer goes
 * through here, so one `NATS_PREFIX` isolates a whole system.
 */
export type Naming = {
  readonly prefix: string;
  subject(name: string): string;
  stream(name: string): string;
  consumer(name: string): string;
};

export function createNaming(prefix: string): Naming {
  return {
    prefix,
    subject: (name) => (prefix ? `${prefix}.${name}` : name),
    // Stream and consumer names may not contain dots.
    stream: (name) => (prefix ? `${prefix.toUpperCase()}_${name}` : name),
    consumer: (name) => (prefix ? `${prefix}_${name}` : name),
  };
}

export async function connectNats(options: {
  url: string;
  name: string;
  log: Logger;
}): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        options.log.warn({ nats: status.type }, 'nats connection status changed');
      }
    }
  })();
  return nc;
}

/** A durable consumer as readiness sees it: running until stopped or ended on its own. */
export type WatchedConsumer = { durable: string; running(): boolean };

/**
 * What the service kit knows about its own connection: whether it is connected now (it
 * reconnects by itself), the registry its metrics go to and the consumers started on it.
 * Consumers are started deep inside a service's handlers with the connection the kit
 * gave them; keyed on that connection, each is instrumented and seen by readiness without
 * every handler threading the kit through.
 */
export type ConnectionWatch = {
  connected(): boolean;
  registry: Registry;
  consumers: Set<WatchedConsumer>;
};

const watches = new WeakMap<NatsConnection, ConnectionWatch>();

export function watchConnection(nc: NatsConnection, registry: Registry): ConnectionWatch {
  let connected = !nc.isClosed();
  const up = gauge(
    registry,
    'mmp_nats_connected',
    '1 while the NATS connection is up, 0 while it reconnects.',
  );
  up.set(connected ? 1 : 0);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'close') connected = false;
      if (status.type === 'reconnect') connected = true;
      up.set(connected ? 1 : 0);
    }
  })();
  const watch: ConnectionWatch = {
    connected: () => connected && !nc.isClosed(),
    registry,
    consumers: new Set(),
  };
  watches.set(nc, watch);
  return watch;
}

/** The kit's watch of a connection; none for a connection a test made itself. */
export function watchOf(nc: NatsConnection): ConnectionWatch | undefined {
  return watches.get(nc);
}
