import type { ExchangedMessage } from '@mmp/protocol';

const REDACTED = '[redacted]';
/** Headers that carry a secret or a proof made with one. */
const SECRET_HEADERS = new Set(['authorization', 'x-service-signature', 'cookie', 'set-cookie']);
/** Keys and secrets of the system, wherever they appear in a body or a URL. */
const SECRET_VALUES = /\b(?:whsec|ssec|sk|svc_(?:test|live)_(?:sk|pk)|adm)_[A-Za-z0-9]+/g;

export function redactText(text: string): string {
  return text.replace(SECRET_VALUES, REDACTED);
}

/** Headers as evidence: one string each, secrets and signatures replaced. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    shown[lower] = SECRET_HEADERS.has(lower)
      ? REDACTED
      : redactText(Array.isArray(value) ? value.join(', ') : value);
  }
  return shown;
}

/** One exchange as a case records it: never a secret, whatever the adapter echoed. */
export function exchange(
  label: string,
  request: {
    method: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
    body: string | null;
  },
  response: {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string | null;
  } | null,
  note: string | null = null,
): ExchangedMessage {
  return {
    label,
    request: {
      method: request.method,
      url: redactText(request.url),
      headers: redactHeaders(request.headers),
      body: request.body === null ? null : redactText(request.body),
    },
    response: response && {
      status: response.status,
      headers: redactHeaders(response.headers),
      body: response.body === null ? null : redactText(response.body),
    },
    note,
  };
}
