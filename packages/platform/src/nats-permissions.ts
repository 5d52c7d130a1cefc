import {
  EVENTS_STREAM,
  EVENT_CONTRACTS,
  OPERATION_CONTRACTS,
  type EventContract,
  type OperationContract,
  NOTICES,
  type Notice,
  type ServiceName,
} from '@mmp/protocol';
import { createNaming, inboxPrefixOf } from './nats.js';

/**
 * The NATS permissions of each service, written from the contracts: a service may publish
 * the requests its contracts name it a caller of and the events they name it the producer
 * of, and receive only requests for its own operations and replies on its own inbox. So
 * only the gateway can send the operations that act for a merchant, a provider or an
 * admin, and a forged actor can only come from a process holding the gateway's
 * credentials. The deployment's NATS users are generated from this (deploy/), and a test
 * runs a real server with them.
 */
export type NatsPermissions = {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Replies to the requests this service receives, and only to those. */
  allow_responses: true;
};

export function natsPermissions(
  service: ServiceName,
  options: {
    prefix?: string;
    operations?: readonly OperationContract[];
    events?: readonly EventContract[];
    notices?: readonly Notice[];
  } = {},
): NatsPermissions {
  const naming = createNaming(options.prefix ?? '');
  const operations = options.operations ?? OPERATION_CONTRACTS;
  const events = options.events ?? EVENT_CONTRACTS;
  const stream = naming.stream(EVENTS_STREAM);
  const sorted = (subjects: Iterable<string>) => [...new Set(subjects)].sort();
  const requests = operations
    .filter((contract) => contract.callers.includes(service))
    .map((contract) => naming.subject(contract.subject));
  // Notices it tells (ServiceKit.notices) and those it hears beyond svc.<service>.>, which it may read whole.
  const notices = options.notices ?? NOTICES;
  const told = notices
    .filter((notice) => notice.service === service)
    .map((notice) => naming.subject(notice.subject));
  const heard = notices
    .filter((notice) => notice.listeners.includes(service) && !notice.subject.startsWith(`svc.${service}.`))
    .map((notice) => naming.subject(notice.subject));
  const produced = events
    .filter((contract) => contract.producer === service)
    .map((contract) => naming.subject(contract.subject));
  const jetstream = [
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.CREATE.${stream}`,
    `$JS.API.STREAM.UPDATE.${stream}`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.ACK.${stream}.>`,
  ];
  return {
    publish: { allow: sorted([...requests, ...told, ...produced, ...jetstream]) },
    subscribe: {
      allow: sorted([naming.subject(`svc.${service}.>`), ...heard, `${inboxPrefixOf(service)}.>`, '$SRV.>']),
    },
    allow_responses: true,
  };
}
