import { request } from 'undici';
import { ServiceCallError } from '@mmp/provider-kit';

/** JSON over the gateway's public API, as any provider or operator would call it. */
export async function callGateway<T>(
  baseUrl: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.body.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return parsed as T;
  const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
  throw new ServiceCallError(
    response.statusCode,
    error?.code ?? null,
    error?.message ?? `HTTP ${response.statusCode}`,
    parsed,
  );
}
