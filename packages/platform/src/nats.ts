import { readFileSync } from 'node:fs';
import {
  connect,
  credsAuthenticator,
  type ConnectionOptions,
  type NatsConnection,
} from '@nats-io/transport-node';
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

/** Each connection's replies come to its own inbox, which no other service may read. */
export function inboxPrefixOf(name: string): string {
  return `_INBOX_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** How a service proves who it is to NATS: nothing (development), a user, or a creds file. */
export type NatsAuth = { user?: string; password?: string; credsFile?: string };

/** The connection options of `NATS_USER`/`NATS_PASSWORD` or `NATS_CREDS`; a half-set pair is refused. */
export function natsAuthOptions(auth: NatsAuth = {}): Partial<ConnectionOptions> {
  const { user, password, credsFile } = auth;
  if (Boolean(user) !== Boolean(password)) {
    throw new Error('NATS_USER and NATS_PASSWORD are set together or not at all');
  }
  if (credsFile && user) throw new Error('set NATS_CREDS or NATS_USER/NATS_PASSWORD, not both');
  // Read on every (re)connect, so a rotated creds file mounted from a Secret is picked up.
  if (credsFile) return { authenticator: credsAuthenticator(() => readFileSync(credsFile)) };
  return user ? { user, pass: password } : {};
}

export async function connectNats(options: {
  url: string;
  name: string;
  log: Logger;
  auth?: NatsAuth;
}): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // Replies come to an inbox only this service may read (see nats-permissions.ts).
    inboxPrefix: inboxPrefixOf(options.name),
    // A stack trace captured for every request costs more CPU than the request itself;
    // a failed request says which subject it was for.
    noAsyncTraces: true,
    ...natsAuthOptions(options.auth),
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

/**
 * Whether the connection is up now (it reconnects by itself), kept in
 * `mmp_nats_connected` for alerts and read by readiness.
 */
export function watchConnection(nc: NatsConnection, registry: Registry): { connected(): boolean } {
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
  return { connected: () => connected && !nc.isClosed() };
}
