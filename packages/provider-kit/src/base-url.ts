/**
 * The service's API base from a URL given with or without its version segment:
 * `http://host:3000` and `http://host:3000/v1/` both become `http://host:3000/v1`. Without
 * this, a base missing `/v1` (as `MMP_URL` is written) reaches no route and gets a bare 404.
 */
export function apiBase(serviceUrl: string): string {
  const trimmed = serviceUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

/** How long one call to the service's API may take when its options name no timeout. */
export const SERVICE_CALL_TIMEOUT_MS = 10_000;
