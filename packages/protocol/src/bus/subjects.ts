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
 * A notice on core NATS (not stored), such as "a credential changed, drop what you cached":
 * published by its service's own NATS user only, heard by the services it names.
 * - among the replicas of one service: `svc.<service>.peers.<topic>` (no operation is
 *   named `peers.*`);
 * - from a service to others: `notice.<service>.<topic>`.
 */
export type Notice = {
  service: ServiceName;
  topic: string;
  subject: string;
  listeners: readonly ServiceName[];
  /** What it tells, and what its detail is (docs/flows.md). */
  summary: string;
};

export function peerNotice(service: ServiceName, topic: string, summary: string): Notice {
  return { service, topic, subject: `svc.${service}.peers.${topic}`, listeners: [service], summary };
}

export function serviceNotice(
  service: ServiceName,
  topic: string,
  listeners: readonly ServiceName[],
  summary: string,
): Notice {
  return { service, topic, subject: `notice.${service}.${topic}`, listeners, summary };
}

export const notices = {
  credentialsChanged: peerNotice(
    'gateway',
    'credentials-changed',
    "A key, a provider key or a project's suspension changed: every replica drops the credentials it believed",
  ),
  ordersReady: peerNotice(
    'provider-delivery',
    'orders-ready',
    'A pull order of the provider (the detail) is stored: the replicas wake its waiting fetches',
  ),
  providerChanged: peerNotice(
    'provider-router',
    'provider-changed',
    "A provider's signing secret or mapping changed (its id the detail; `*` for any): the replicas drop the provider they kept for settlements",
  ),
  paymentChanged: serviceNotice(
    'payments',
    'payment-changed',
    ['gateway'],
    'A payment (its token the detail; `*` for any) changed: the gateway drops the merchant reads of it it kept',
  ),
} as const;

export const NOTICES: readonly Notice[] = Object.values(notices);

/** Domain events live on `evt.<aggregate>.<event>` in the JetStream stream `EVENTS`. */
export const EVENTS_STREAM = 'EVENTS';
export const EVENTS_SUBJECTS = 'evt.>';

export function eventSubject(type: string): string {
  return `evt.${type}`;
}
