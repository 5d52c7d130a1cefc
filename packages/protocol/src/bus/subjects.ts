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
 * Notices among the replicas of one service (`svc.<service>.peers.<topic>`), such as "a
 * credential changed, drop what you cached". No operation is named `peers.*`.
 */
export function peerSubject(service: ServiceName, topic: string): string {
  return `svc.${service}.peers.${topic}`;
}

/** Domain events live on `evt.<aggregate>.<event>` in the JetStream stream `EVENTS`. */
export const EVENTS_STREAM = 'EVENTS';
export const EVENTS_SUBJECTS = 'evt.>';

export function eventSubject(type: string): string {
  return `evt.${type}`;
}
