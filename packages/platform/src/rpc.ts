import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { ServiceError, Svcm, type ServiceMsg } from '@nats-io/services';
import type { z } from 'zod';
import {
  Actor,
  AppErrorBody,
  HEADER,
  ServiceReply,
  ServiceRequest,
  UNIVERSAL_ERRORS,
  appError,
  grants,
  isAppError,
  newRequestId,
  parseOrThrow,
  type ActorOf,
  type AppError,
  type OperationContract,
  type ServiceName,
} from '@mmp/protocol';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';
import { counter, histogram, statusClass } from './metrics.js';
import type { Naming } from './nats.js';
import type { OperationOutcomes } from './outcomes.js';

export type RequestContext<C extends OperationContract = OperationContract> = {
  requestId: string;
  actor: ActorOf<C['actors'][number]>;
  log: Logger;
};

/**
 * The handler of one operation: the request its contract parsed, the caller's actor
 * (already checked against the contract's kinds and scope), and the reply the contract
 * declares. Failures are thrown as AppError.
 */
export type OperationHandler<C extends OperationContract> = (
  request: z.output<C['request']>,
  context: RequestContext<C>,
) => Promise<z.input<C['reply']>>;

/** A contract with its handler, as a service registers it with the kit. */
export type ServedOperation = {
  contract: OperationContract;
  handler: OperationHandler<OperationContract>;
  /**
   * The handler keeps its Idempotency-Key outcomes itself (payments' create and cancel,
   * which also find what a crashed holder wrote); the kit's outcomes leave it alone.
   */
  keepsItsOutcomes?: boolean;
};

export function operation<C extends OperationContract>(
  contract: C,
  handler: OperationHandler<C>,
  options: { keepsItsOutcomes?: boolean } = {},
): ServedOperation {
  return { contract, handler: handler as unknown as OperationHandler<OperationContract>, ...options };
}

/**
 * Each handler served under the contract of its own name in `contracts`: a handlers module
 * names its functions after the operations of one API, so none can be wired to another's
 * contract. `keepsItsOutcomes` names the handlers that keep their Idempotency-Key outcomes.
 */
export function operations<A extends Record<string, OperationContract>>(
  contracts: A,
  handlers: { [K in keyof A]?: OperationHandler<A[K]> },
  options: { keepsItsOutcomes?: readonly (keyof A & string)[] } = {},
): ServedOperation[] {
  return Object.entries(handlers).map(([name, handler]) => {
    const contract = contracts[name];
    if (!contract || !handler) throw new Error(`no contract named ${name} for its handler`);
    const keepsItsOutcomes = options.keepsItsOutcomes?.includes(name);
    return operation(
      contract,
      handler as OperationHandler<OperationContract>,
      keepsItsOutcomes ? { keepsItsOutcomes } : {},
    );
  });
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Served operations; `stop()` stops taking requests and waits for those being answered. */
export type ServedOperations = { stop(): Promise<void> };

const isHttp = (contract: OperationContract) => contract.responses !== undefined;

function violations(registry: Registry | undefined) {
  return registry
    ? counter(
        registry,
        'mmp_contract_violations_total',
        'Messages that broke their contract: a request, reply or event whose shape the contract refuses, or an undeclared error code.',
        ['contract', 'direction'],
      )
    : undefined;
}

/**
 * Serves each contract's subject through the NATS Services API, in a queue group so
 * replicas share the load. Every request on the bus is a `ServiceRequest` and every answer
 * a `ServiceReply` (an internal operation's input is its `body`, its result the reply's
 * `body`); failures travel as service errors whose code is the HTTP status and whose data
 * is the AppError body. Nothing else leaves the service.
 */
export async function serveOperations(options: {
  nc: NatsConnection;
  naming: Naming;
  service: ServiceName;
  version: string;
  log: Logger;
  operations: ServedOperation[];
  /** Records `mmp_operations_total{operation, status_class}` and their latency. */
  metrics?: Registry;
  /** Keeps the first outcome of HTTP operations called with an Idempotency-Key. */
  outcomes?: OperationOutcomes;
}): Promise<ServedOperations> {
  const { nc, naming, service, log } = options;
  const svc = await new Svcm(nc).add({
    name: naming.prefix ? `${naming.prefix}_${service}` : service,
    version: options.version,
    queue: naming.consumer(service),
  });
  const answering = new Set<Promise<void>>();
  const violated = violations(options.metrics);
  for (const served of options.operations) {
    const { contract } = served;
    if (contract.service !== service) {
      throw new Error(
        `${service} cannot serve ${contract.subject}: its contract belongs to ${contract.service}`,
      );
    }
    const observe = options.metrics ? operationMetrics(options.metrics, contract.name) : undefined;
    svc.addEndpoint(contract.name.replace(/[^A-Za-z0-9_-]/g, '_'), {
      subject: naming.subject(contract.subject),
      handler: (_err, msg) => {
        const answered: Promise<void> = answer(msg, served, {
          log,
          outcomes: options.outcomes,
          done: observe?.(),
          violation: (direction) => violated?.inc({ contract: contract.subject, direction }),
        }).finally(() => answering.delete(answered));
        answering.add(answered);
      },
    });
  }
  // Subscriptions are sent lazily; a round trip makes the server know them before we call
  // ourselves ready, so a request right after start (or restart) never meets "no responders".
  await nc.flush();
  return {
    async stop() {
      await svc.stop().catch(() => undefined);
      // A request taken before the stop gets its answer before the connection drains.
      await Promise.all(answering);
    },
  };
}

type Outcome = (status: number) => void;

function operationMetrics(registry: Registry, operation: string): () => Outcome {
  const total = counter(
    registry,
    'mmp_operations_total',
    'NATS operations answered by this service, by status class (5xx are failures).',
    ['operation', 'status_class'],
  );
  const seconds = histogram(
    registry,
    'mmp_operation_duration_seconds',
    'Time this service took to answer a NATS operation.',
    ['operation'],
  );
  return () => {
    const stopTimer = seconds.startTimer({ operation });
    return (status) => {
      stopTimer();
      total.inc({ operation, status_class: statusClass(status) });
    };
  };
}

/** The caller's actor, refused unless its contract admits its kind and scope. */
function admittedActor(contract: OperationContract, header: string | undefined): Actor {
  const parsed = Actor.safeParse(header ? safeJson(header) : { kind: 'public' });
  if (!parsed.success) throw appError('insufficient_permissions', 'The caller is not one this system knows.');
  const actor = parsed.data;
  if (!contract.actors.includes(actor.kind)) {
    throw appError('insufficient_permissions', REFUSALS[contract.actors[0] ?? 'service']);
  }
  if (actor.kind === 'merchant' && contract.scope && !grants(actor.scopes, contract.scope)) {
    throw appError('insufficient_permissions', `This key lacks the ${contract.scope} scope.`);
  }
  return actor;
}

const REFUSALS: Record<Actor['kind'], string> = {
  merchant: 'This operation needs a merchant API key.',
  provider: 'This operation needs a provider API key.',
  admin: 'This operation needs the admin token.',
  public: 'This operation is public.',
  service: 'This operation is internal to the system.',
};

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function answer(
  msg: ServiceMsg,
  { contract, handler, keepsItsOutcomes }: ServedOperation,
  observe: {
    log: Logger;
    outcomes?: OperationOutcomes;
    done?: Outcome;
    violation: (direction: 'request' | 'error') => void;
  },
) {
  const requestId = msg.headers?.get(HEADER.requestId) || newRequestId();
  const outcomes = keepsItsOutcomes ? undefined : observe.outcomes;
  // Built on first use: pino serialises (and redacts) a child's bindings when it is made,
  // which cost a retrieve more than its reply when nothing was logged.
  let child: Logger | undefined;
  const logger = () => (child ??= observe.log.child({ requestId, operation: contract.name }));
  try {
    const actor = admittedActor(contract, msg.headers?.get(HEADER.actor));
    const envelope = ServiceRequest.safeParse(msg.data.length ? safeJson(decoder.decode(msg.data)) : {});
    if (!envelope.success) {
      observe.violation('request');
      logger().warn({ issues: envelope.error.issues }, 'refusing a request that is not a ServiceRequest');
      throw appError('invalid_request', 'The request does not follow its contract.');
    }
    let input: unknown = envelope.data;
    if (!isHttp(contract)) {
      try {
        // Refused with every invalid field, like any other request.
        input = parseOrThrow(contract.request, envelope.data.body);
      } catch (error) {
        observe.violation('request');
        logger().warn({ err: error }, 'refusing a request its contract does not admit');
        throw error;
      }
    }
    const context = {
      requestId,
      actor,
      get log() {
        return logger();
      },
    } as RequestContext;
    const reply: ServiceReply = !isHttp(contract)
      ? { status: 200, body: await handler(input, context) }
      : outcomes
        ? await outcomes.run(
            contract.subject,
            actor,
            envelope.data,
            async () => (await handler(input, context)) as ServiceReply,
          )
        : ((await handler(input, context)) as ServiceReply);
    observe.done?.(reply.status);
    msg.respond(encoder.encode(JSON.stringify(reply)));
  } catch (error) {
    const known = isAppError(error) ? error : undefined;
    if (!known) logger().error({ err: error }, 'operation failed');
    const failure = known ?? appError('internal_error', 'An internal error occurred.');
    // A keyed request may meet its key used with another request, whatever the operation.
    const keyed = outcomes !== undefined && known?.code === 'idempotency_conflict';
    if (known && !keyed && !contract.errors.includes(known.code) && !UNIVERSAL_ERRORS.includes(known.code)) {
      observe.violation('error');
      logger().warn({ code: known.code }, 'answered with an error code its contract does not declare');
    }
    observe.done?.(failure.status);
    msg.respondError(
      failure.status,
      failure.code,
      encoder.encode(
        JSON.stringify({ code: failure.code, message: failure.message, fields: failure.fields }),
      ),
    );
  }
}

export type CallOptions = {
  requestId?: string;
  actor?: Actor;
  timeoutMs?: number;
  /** How long the callee may hold this request on purpose (a long poll), on top of the timeout. */
  heldMs?: number;
};

/** Typed requests to other services' operations, by contract. */
export type BusClient = {
  /**
   * Sends the request its contract declares and returns the reply it declares, checked.
   * Throws the operation's AppError, or service_unavailable when no one answers in time.
   */
  request<C extends OperationContract>(
    contract: C,
    request: z.input<C['request']>,
    options?: CallOptions,
  ): Promise<z.output<C['reply']>>;
};

export function createBusClient(options: {
  nc: NatsConnection;
  naming: Naming;
  caller: ServiceName;
  defaultTimeoutMs: number;
  log: Logger;
  /** Records `mmp_calls_total{target, operation, outcome}` and their latency. */
  metrics?: Registry;
}): BusClient {
  const { nc, naming, log } = options;
  const violated = violations(options.metrics);
  const calls = options.metrics
    ? {
        total: counter(
          options.metrics,
          'mmp_calls_total',
          'NATS operations this service called, by outcome: ok, error (a typed error answer), unavailable (no answer in time).',
          ['target', 'operation', 'outcome'],
        ),
        seconds: histogram(
          options.metrics,
          'mmp_call_duration_seconds',
          'Time a NATS operation this service called took to answer.',
          ['target', 'operation'],
        ),
      }
    : undefined;

  /** A reply that breaks the contract is the callee's bug: counted, logged, and a 500 here. */
  function brokenReply(contract: OperationContract, issues: unknown): AppError {
    violated?.inc({ contract: contract.subject, direction: 'reply' });
    log.error({ operation: contract.subject, issues }, 'reply does not follow its contract');
    return appError('internal_error', 'An internal error occurred.');
  }

  function checkedReply(contract: OperationContract, raw: unknown): unknown {
    const envelope = ServiceReply.safeParse(raw);
    if (!envelope.success) throw brokenReply(contract, envelope.error.issues);
    if (isHttp(contract)) {
      const schema = contract.responses?.[envelope.data.status];
      const body = schema?.safeParse(envelope.data.body);
      // The body goes on as the service wrote it; the check only guards the contract.
      if (body && !body.success) throw brokenReply(contract, body.error.issues);
      return envelope.data;
    }
    const body = contract.reply.safeParse(envelope.data.body);
    if (!body.success) throw brokenReply(contract, body.error.issues);
    return body.data;
  }

  async function send(contract: OperationContract, request: unknown, callOptions: CallOptions) {
    if (!contract.callers.includes(options.caller)) {
      throw new Error(`${options.caller} is not a caller of ${contract.subject}; add it to the contract`);
    }
    const hdrs: MsgHdrs = natsHeaders();
    hdrs.set(HEADER.requestId, callOptions.requestId ?? newRequestId());
    hdrs.set(HEADER.actor, JSON.stringify(callOptions.actor ?? { kind: 'service', service: options.caller }));
    const envelope = isHttp(contract) ? request : { body: request };
    const data = encoder.encode(JSON.stringify(envelope));
    refuseOversized(nc, contract, data.length + headerBytes(hdrs));
    let msg;
    try {
      msg = await nc.request(naming.subject(contract.subject), data, {
        timeout:
          (callOptions.timeoutMs ?? Math.max(contract.waitMs ?? 0, options.defaultTimeoutMs)) +
          (callOptions.heldMs ?? 0),
        headers: hdrs,
      });
    } catch {
      // No responders and timeouts look alike to a caller: the service is not there now.
      throw appError('service_unavailable', `The ${contract.service} service is temporarily unavailable.`);
    }
    if (ServiceError.isServiceError(msg)) throw errorFromReply(msg.data, msg.headers);
    return checkedReply(contract, safeJson(decoder.decode(msg.data)));
  }

  return {
    async request(contract, request, callOptions = {}) {
      if (!calls) return send(contract, request, callOptions) as never;
      const labels = { target: contract.service, operation: contract.name };
      const stopTimer = calls.seconds.startTimer(labels);
      let outcome = 'ok';
      try {
        return (await send(contract, request, callOptions)) as never;
      } catch (error) {
        outcome = isAppError(error) && error.code === 'service_unavailable' ? 'unavailable' : 'error';
        throw error;
      } finally {
        stopTimer();
        calls.total.inc({ ...labels, outcome });
      }
    },
  };
}

/**
 * A message over the server's max_payload (learnt from its INFO at connect) can never be
 * sent: the caller gets 413 payload_too_large, which tells a client not to retry it, instead
 * of the 503 of a service that is merely away. Headers count against the limit too.
 */
function refuseOversized(nc: NatsConnection, contract: OperationContract, bytes: number): void {
  const limit = nc.info?.max_payload;
  if (limit !== undefined && bytes > limit) {
    throw appError(
      'payload_too_large',
      `The request is too large to pass on to the ${contract.service} service.`,
    );
  }
}

/** The size of the headers on the wire: `NATS/1.0`, one `name: value` line each, a blank line. */
function headerBytes(hdrs: MsgHdrs): number {
  let bytes = 'NATS/1.0\r\n\r\n'.length;
  for (const [name, values] of hdrs) {
    for (const value of values) bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  }
  return bytes;
}

function errorFromReply(data: Uint8Array, hdrs: MsgHdrs | undefined): AppError {
  const body = AppErrorBody.safeParse(safeJson(decoder.decode(data)));
  if (body.success) return appError(body.data.code, body.data.message, body.data.fields);
  return appError('internal_error', hdrs?.get('Nats-Service-Error') || 'An internal error occurred.');
}
