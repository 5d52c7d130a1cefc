import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { ServiceError, Svcm, type ServiceMsg } from '@nats-io/services';
import {
  appError,
  type AppError,
  Actor,
  HEADER,
  ServiceReply,
  ServiceRequest,
  isAppError,
  newRequestId,
  serviceSubject,
  type ServiceName,
} from '@mmp/protocol';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';
import { counter, histogram, statusClass } from './metrics.js';
import type { Naming } from './nats.js';

export type RequestContext = {
  requestId: string;
  actor: Actor;
  log: Logger;
};

/** One operation of a service: an HTTP-shaped request in, a reply out, AppError for failures. */
export type Operation = (request: ServiceRequest, context: RequestContext) => Promise<ServiceReply>;

const encoder = new TextEncoder();

/** Served operations; `stop()` stops taking requests and waits for those being answered. */
export type ServedOperations = { stop(): Promise<void> };

type Outcome = (status: number) => void;

/**
 * Serves `svc.<service>.<operation>` through the NATS Services API, in a queue group so
 * replicas share the load. Failures travel as service errors whose code is the HTTP
 * status and whose data is the AppError body; nothing else leaves the service.
 */
export async function serveOperations(options: {
  nc: NatsConnection;
  naming: Naming;
  service: ServiceName;
  version: string;
  log: Logger;
  operations: Record<string, Operation>;
  /** Records `mmp_operations_total{operation, status_class}` and their latency. */
  metrics?: Registry;
}): Promise<ServedOperations> {
  const { nc, naming, service, log } = options;
  const svc = await new Svcm(nc).add({
    name: naming.prefix ? `${naming.prefix}_${service}` : service,
    version: options.version,
    queue: naming.consumer(service),
  });
  const answering = new Set<Promise<void>>();
  for (const [operation, run] of Object.entries(options.operations)) {
    const observe = options.metrics ? operationMetrics(options.metrics, operation) : undefined;
    svc.addEndpoint(operation.replace(/[^A-Za-z0-9_-]/g, '_'), {
      subject: naming.subject(serviceSubject(service, operation)),
      handler: (_err, msg) => {
        const answered: Promise<void> = answer(msg, run, log, operation, observe?.()).finally(() =>
          answering.delete(answered),
        );
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

async function answer(msg: ServiceMsg, run: Operation, baseLog: Logger, operation: string, done?: Outcome) {
  const requestId = msg.headers?.get(HEADER.requestId) || newRequestId();
  const log = baseLog.child({ requestId, operation });
  try {
    const actor = Actor.parse(JSON.parse(msg.headers?.get(HEADER.actor) || '{"kind":"public"}'));
    const request = ServiceRequest.parse(msg.data.length ? msg.json() : {});
    const reply = await run(request, { requestId, actor, log });
    done?.(reply.status);
    msg.respond(encoder.encode(JSON.stringify(reply)));
  } catch (error) {
    const known = isAppError(error) ? error : undefined;
    if (!known) log.error({ err: error }, 'operation failed');
    const failure = known ?? appError('internal_error', 'An internal error occurred.');
    done?.(failure.status);
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
};

export type ServiceClient = {
  /** Calls an operation; throws AppError, service_unavailable when no one answers in time. */
  call(
    service: ServiceName,
    operation: string,
    request: Partial<ServiceRequest>,
    options?: CallOptions,
  ): Promise<ServiceReply>;
  /** Calls an internal operation and returns its reply body, typed by the caller. */
  command<T>(service: ServiceName, operation: string, body: unknown, options?: CallOptions): Promise<T>;
};

export function createServiceClient(options: {
  nc: NatsConnection;
  naming: Naming;
  caller: string;
  defaultTimeoutMs: number;
  /** Records `mmp_calls_total{target, operation, outcome}` and their latency. */
  metrics?: Registry;
}): ServiceClient {
  const { nc, naming } = options;
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
  async function call(
    service: ServiceName,
    operation: string,
    request: Partial<ServiceRequest>,
    callOptions: CallOptions = {},
  ): Promise<ServiceReply> {
    if (!calls) return callOnce(service, operation, request, callOptions);
    const stopTimer = calls.seconds.startTimer({ target: service, operation });
    let outcome = 'ok';
    try {
      return await callOnce(service, operation, request, callOptions);
    } catch (error) {
      outcome = isAppError(error) && error.code === 'service_unavailable' ? 'unavailable' : 'error';
      throw error;
    } finally {
      stopTimer();
      calls.total.inc({ target: service, operation, outcome });
    }
  }
  async function callOnce(
    service: ServiceName,
    operation: string,
    request: Partial<ServiceRequest>,
    callOptions: CallOptions = {},
  ): Promise<ServiceReply> {
    const hdrs: MsgHdrs = natsHeaders();
    hdrs.set(HEADER.requestId, callOptions.requestId ?? newRequestId());
    hdrs.set(HEADER.actor, JSON.stringify(callOptions.actor ?? { kind: 'service', service: options.caller }));
    let msg;
    try {
      msg = await nc.request(naming.subject(serviceSubject(service, operation)), JSON.stringify(request), {
        timeout: callOptions.timeoutMs ?? options.defaultTimeoutMs,
        headers: hdrs,
      });
    } catch {
      // No responders and timeouts look alike to a caller: the service is not there now.
      throw appError('service_unavailable', `The ${service} service is temporarily unavailable.`);
    }
    if (ServiceError.isServiceError(msg)) throw errorFromReply(msg.data, msg.headers);
    return ServiceReply.parse(msg.json());
  }
  return {
    call,
    async command<T>(service: ServiceName, operation: string, body: unknown, callOptions?: CallOptions) {
      const reply = await call(service, operation, { body }, callOptions);
      return reply.body as T;
    },
  };
}

function errorFromReply(data: Uint8Array, hdrs: MsgHdrs | undefined): AppError {
  try {
    const body = JSON.parse(new TextDecoder().decode(data)) as { code: string; message: string; fields?: [] };
    return appError(body.code as never, body.message, body.fields);
  } catch {
    return appError('internal_error', hdrs?.get('Nats-Service-Error') || 'An internal error occurred.');
  }
}
