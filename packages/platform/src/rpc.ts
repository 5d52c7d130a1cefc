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
import type { Logger } from './logger.js';
import type { Naming } from './nats.js';

export type RequestContext = {
  requestId: string;
  actor: Actor;
  log: Logger;
};

/** One operation of a service: an HTTP-shaped request in, a reply out, AppError for failures. */
export type Operation = (request: ServiceRequest, context: RequestContext) => Promise<ServiceReply>;

const encoder = new TextEncoder();

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
}) {
  const { nc, naming, service, log } = options;
  const svc = await new Svcm(nc).add({
    name: naming.prefix ? `${naming.prefix}_${service}` : service,
    version: options.version,
    queue: naming.consumer(service),
  });
  for (const [operation, run] of Object.entries(options.operations)) {
    svc.addEndpoint(operation.replace(/[^A-Za-z0-9_-]/g, '_'), {
      subject: naming.subject(serviceSubject(service, operation)),
      handler: (_err, msg) => void answer(msg, run, log, operation),
    });
  }
  return svc;
}

async function answer(msg: ServiceMsg, run: Operation, baseLog: Logger, operation: string) {
  const requestId = msg.headers?.get(HEADER.requestId) || newRequestId();
  const log = baseLog.child({ requestId, operation });
  try {
    const actor = Actor.parse(JSON.parse(msg.headers?.get(HEADER.actor) || '{"kind":"public"}'));
    const request = ServiceRequest.parse(msg.data.length ? msg.json() : {});
    const reply = await run(request, { requestId, actor, log });
    msg.respond(encoder.encode(JSON.stringify(reply)));
  } catch (error) {
    const known = isAppError(error) ? error : undefined;
    if (!known) log.error({ err: error }, 'operation failed');
    const failure = known ?? appError('internal_error', 'An internal error occurred.');
    msg.respondError(
      failure.status,
      failure.code,
      encoder.encode(JSON.stringify({ code: failure.code, message: failure.message, fields: failure.fields })),
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
  call(service: ServiceName, operation: string, request: Partial<ServiceRequest>, options?: CallOptions): Promise<ServiceReply>;
  /** Calls an internal operation and returns its reply body, typed by the caller. */
  command<T>(service: ServiceName, operation: string, body: unknown, options?: CallOptions): Promise<T>;
};

export function createServiceClient(options: {
  nc: NatsConnection;
  naming: Naming;
  caller: string;
  defaultTimeoutMs: number;
}): ServiceClient {
  const { nc, naming } = options;
  async function call(
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
