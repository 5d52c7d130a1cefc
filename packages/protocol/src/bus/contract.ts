import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { Scope } from '../scopes.js';
import { newEventId } from '../ids.js';
import type { Actor } from './envelope.js';
import { ServiceReply, ServiceRequest } from './envelope.js';
import { eventSubject, serviceSubject, type ServiceName } from './subjects.js';

/**
 * Contracts: every NATS operation and every event of the system is declared once, here in
 * `packages/protocol/src/contracts/`. The service that serves an operation registers its
 * handler with the contract object, and every caller calls it with the same object, so
 * go-to-definition crosses the NATS hop. The kit (`@mmp/platform`) validates requests,
 * replies and event data against the contract, checks the caller's actor kind and scope,
 * and refuses any caller, producer or consumer the contract does not list. The flows
 * document (`docs/flows.md`) and the NATS permissions of each service are generated from
 * the same objects.
 */

export type ActorKind = Actor['kind'];

/** The actor an operation's handler receives: one of the kinds its contract admits. */
export type ActorOf<K extends ActorKind> = Extract<Actor, { kind: K }>;

export interface OperationContract<
  Req extends z.ZodType = z.ZodType,
  Rep extends z.ZodType = z.ZodType,
  K extends ActorKind = ActorKind,
> {
  readonly kind: 'operation';
  readonly service: ServiceName;
  /** `create`, `sessions.pay`: the subject is `svc.<service>.<name>`. */
  readonly name: string;
  /** The subject without the deployment prefix. */
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  /** Who the request may act for; anything else is refused with insufficient_permissions. */
  readonly actors: readonly K[];
  /** Services that may send this request (the gateway for every HTTP operation). */
  readonly callers: readonly ServiceName[];
  /** The scope a merchant actor must hold (write grants read), checked by the service itself. */
  readonly scope?: Scope;
  /** Error codes the operation answers with, beyond the ones every operation may answer. */
  readonly errors: readonly ErrorCode[];
  readonly summary: string;
  /**
   * Forwarded HTTP operations only: the reply body's schema by status code. Their request is
   * the HTTP-shaped `ServiceRequest` (the service validates params, query and body and
   * answers the documented 400s) and their reply a `ServiceReply`.
   */
  readonly responses?: Readonly<Record<number, z.ZodType>>;
  /**
   * How long a caller waits for the reply at least, for an operation whose own work has a
   * longer deadline than the default wait (REQUEST_TIMEOUT_MS), such as a probe of a
   * provider's endpoint: the caller then answers with the operation's result, not 503.
   */
  readonly waitMs?: number;
}

/** Every operation may answer these, whatever its contract lists. */
export const UNIVERSAL_ERRORS: readonly ErrorCode[] = [
  'internal_error',
  'service_unavailable',
  'insufficient_permissions',
];

type OperationSpec<Req extends z.ZodType, Rep extends z.ZodType, K extends ActorKind> = {
  service: ServiceName;
  name: string;
  request: Req;
  reply: Rep;
  actors: readonly K[];
  callers: readonly ServiceName[];
  errors?: readonly ErrorCode[];
  summary: string;
  waitMs?: number;
};

/** An internal command or query between services: typed request in, typed reply out. */
export function defineOperation<Req extends z.ZodType, Rep extends z.ZodType, K extends ActorKind>(
  spec: OperationSpec<Req, Rep, K>,
): OperationContract<Req, Rep, K> {
  return {
    kind: 'operation',
    ...spec,
    subject: serviceSubject(spec.service, spec.name),
    errors: spec.errors ?? [],
  };
}

/**
 * A query the gateway makes of a service, for itself (its health checks act as a service) or
 * for an operator (an admin): a service's own state, read through the gateway.
 */
export function gatewayQuery<Req extends z.ZodType, Rep extends z.ZodType>(
  service: ServiceName,
  name: string,
  spec: Omit<OperationSpec<Req, Rep, 'service' | 'admin'>, 'service' | 'name' | 'actors' | 'callers'>,
): OperationContract<Req, Rep, 'service' | 'admin'> {
  return defineOperation({ service, name, actors: ['service', 'admin'], callers: ['gateway'], ...spec });
}

type SharedFields<K extends ActorKind> = {
  service: ServiceName;
  actors: readonly K[];
  callers: readonly ServiceName[];
};

/** The operations of a group that share their service, actors and callers, said once. */
export function operationsOf<K extends ActorKind>(shared: SharedFields<K>) {
  return <Req extends z.ZodType, Rep extends z.ZodType>(
    spec: Omit<OperationSpec<Req, Rep, K>, keyof SharedFields<K>>,
  ): OperationContract<Req, Rep, K> => defineOperation({ ...shared, ...spec });
}

export type HttpOperationContract<K extends ActorKind = ActorKind> = OperationContract<
  typeof ServiceRequest,
  typeof ServiceReply,
  K
> & { readonly responses: Readonly<Record<number, z.ZodType>> };

type HttpOperationSpec<K extends ActorKind> = {
  service: ServiceName;
  name: string;
  actors: readonly K[];
  scope?: Scope;
  /** Success bodies by status; a reply with another status is not checked. */
  responses: Record<number, z.ZodType>;
  errors?: readonly ErrorCode[];
  summary: string;
  waitMs?: number;
};

/**
 * An operation the gateway forwards from an HTTP route: the HTTP-shaped request and reply
 * cross the bus, and the owning service validates the input (its 400s list every field).
 */
export function defineHttpOperation<K extends ActorKind>(
  spec: HttpOperationSpec<K>,
): HttpOperationContract<K> {
  return {
    kind: 'operation',
    ...spec,
    subject: serviceSubject(spec.service, spec.name),
    request: ServiceRequest,
    reply: ServiceReply,
    callers: ['gateway'],
    errors: spec.errors ?? [],
  };
}

type SharedHttpFields<K extends ActorKind> = { service: ServiceName; actors: readonly K[]; scope?: Scope };

/**
 * The HTTP operations of a group that share their service, actors and scope: the group says
 * those once, each operation only what is its own.
 */
export function httpOperationsOf<K extends ActorKind>(shared: SharedHttpFields<K>) {
  return (spec: Omit<HttpOperationSpec<K>, keyof SharedHttpFields<K>>): HttpOperationContract<K> =>
    defineHttpOperation({ ...shared, ...spec });
}

export interface EventContract<T extends string = string, D extends z.ZodType = z.ZodType> {
  readonly kind: 'event';
  /** `payment.completed`: the subject is `evt.<type>`. */
  readonly type: T;
  /** Raised only by a breaking change of `data`; additive changes keep it (docs/operations.md). */
  readonly version: number;
  readonly data: D;
  readonly producer: ServiceName;
  readonly consumers: readonly ServiceName[];
  readonly subject: string;
  readonly summary: string;
  /**
   * NATS headers every event of the contract carries, read from its data when published:
   * a consumer that has nothing to do with some of the events can pass over them by a
   * header, without reading their data (`passOver` of a consumer).
   */
  readonly headers?: (data: z.output<D>) => Record<string, string>;
}

type EventSpec<T extends string, D extends z.ZodType> = {
  type: T;
  data: D;
  consumers: readonly ServiceName[];
  summary: string;
  headers?: (data: z.output<D>) => Record<string, string>;
};

export function defineEvent<T extends string, D extends z.ZodType>(
  spec: EventSpec<T, D> & { version: number; producer: ServiceName },
): EventContract<T, D> {
  return { kind: 'event', ...spec, subject: eventSubject(spec.type) };
}

/** The events one service produces; every event is still at its first version. */
export function eventsOf(producer: ServiceName) {
  return <T extends string, D extends z.ZodType>(spec: EventSpec<T, D>): EventContract<T, D> =>
    defineEvent({ ...spec, version: 1, producer });
}

/**
 * A domain event as it is stored in an outbox and published on `evt.<type>`, with
 * `Nats-Msg-Id` = `id`: a re-publish after a crash is dropped by the stream, and every
 * consumer processes an id at most once.
 */
export const EventEnvelope = z.object({
  id: z.string().startsWith('evt_'),
  type: z.string(),
  /** Events written before versions existed are version 1. */
  version: z.number().int().positive().default(1),
  occurredAt: z.iso.datetime(),
  projectId: z.string().optional(),
  livemode: z.boolean().optional(),
  data: z.unknown(),
});
export type PendingEvent = z.input<typeof EventEnvelope>;

/** A received event of one of the contracts `C`, its data parsed by that contract. */
export type EventOf<C> =
  C extends EventContract<infer T, infer D>
    ? Omit<PendingEvent, 'type' | 'data'> & { type: T; data: z.output<D> }
    : never;

/**
 * Builds an event of `contract` for an outbox. The data is checked here, so a producer can
 * never write an event its consumers would refuse.
 */
export function newEvent<C extends EventContract>(
  contract: C,
  data: z.input<C['data']>,
  meta: { occurredAt: string; projectId?: string; livemode?: boolean; id?: string },
): PendingEvent {
  return {
    id: meta.id ?? newEventId(),
    type: contract.type,
    version: contract.version,
    occurredAt: meta.occurredAt,
    ...(meta.projectId === undefined ? {} : { projectId: meta.projectId }),
    ...(meta.livemode === undefined ? {} : { livemode: meta.livemode }),
    data: contract.data.parse(data),
  };
}
