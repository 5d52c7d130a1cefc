/**
 * The service's API base from a URL given with or without its version segment:
 * `http://host:3000` and `http://host:3000/v1/` both become `http://host:3000/v1`. Without
 * this, a base missing `/v1` (as `MMP_URL` is written) reaches no route and gets a bare 404.
 */
export function apiBase(serviceUrl: string): string {
  const trimmed = serviceUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}
