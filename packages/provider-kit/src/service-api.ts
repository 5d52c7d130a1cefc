import { apiBase, SERVICE_CALL_TIMEOUT_MS } from './base-url.js';
import { exchangeHttp } from './http-exchange.js';
import { parseMaybe } from './settlement.js';

/** A non-2xx answer of the service, with the envelope's code when there is one. */
export class ServiceCallError extends Error {
  override readonly name = 'ServiceCallError';
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export type ServiceApiOptions = {
  /** The service's URL, with or without `/v1`. */
  baseUrl: string;
  /** The provider's `sk_` key (or, for admin routes, the admin token). */
  apiKey: string;
  timeoutMs?: number;
};

/**
 * One JSON call to the service's API with a Bearer key: the provider portal (create, test
 * and activate rails, certification runs), the pull routes, or admin routes. Resolves with
 * the parsed 2xx answer; any other status throws a ServiceCallError saying why.
 */
export async function callServiceApi<T = unknown>(
  options: ServiceApiOptions,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const answer = await exchangeHttp(`${apiBase(options.baseUrl)}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: options.timeoutMs ?? SERVICE_CALL_TIMEOUT_MS,
  });
  const parsed = parseMaybe(answer.text);
  if (answer.status >= 200 && answer.status < 300) return parsed as T;
  const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
  throw new ServiceCallError(
    answer.status,
    error?.code ?? null,
    error?.message ?? `HTTP ${answer.status}`,
    parsed,
  );
}
