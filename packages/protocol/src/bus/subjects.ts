/**
 * NATS subject names, without the deployment prefix. `NATS_PREFIX` (see the platform kit)
 * is prepended to every subject, stream and consumer so that test runs, CI and a local
 * `pnpm start` can share one NATS server without seeing each other's messages.
 */

export const SERVICE_NAMES = [
  'gateway',
  'payments',
  'links-checkout',
  'customers',
  'provider-router',
  'provider-delivery',
  'certification-runner',
  'sandbox-provider',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Request/reply subject of one operation: `svc.<service>.<operation>`. */
export function serviceSubject(service: ServiceName, operation: string): string {
  return `svc.${service}.${operation}`;
}

/**
 * A notice among the replicas of one service (`svc.<service>.peers.<topic>`), such as "a
 * credential changed, drop what you cached": declared here like every other subject on the
 * bus, and publishable by its service's own NATS user only. No operation is named `peers.*`.
 */
export type PeerNotice = { service: ServiceName; topic: string; subject: string };

export function peerNotice(service: ServiceName, topic: string): PeerNotice {
  return { service, topic, subject: `svc.${service}.peers.${topic}` };
}

export const peerNotices = {
  /** A key, a provider key or a project's suspension changed: drop cached credentials. */
  credentialsChanged: peerNotice('gateway', 'credentials-changed'),
  /** A pull order of the provider (the detail) is stored: wake its waiting fetches. */
  ordersReady: peerNotice('provider-delivery', 'orders-ready'),
} as const;

export const PEER_NOTICES: readonly PeerNotice[] = Object.values(peerNotices);

/** Domain events live on `evt.<aggregate>.<event>` in the JetStream stream `EVENTS`. */
export const EVENTS_STREAM = 'EVENTS';
export const EVENTS_SUBJECTS = 'evt.>';

export function eventSubject(type: string): string {
  return `evt.${type}`;
}
