import { fetch } from 'undici';

/** A failure the CLI reports as one clear line and a non-zero exit. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly details: { status?: number; code?: string; requestId?: string } = {},
  ) {
    super(message);
  }
}

type ErrorBody = {
  code?: string;
  message?: string;
  requestId?: string;
  errors?: { field: string; message: string }[];
  error?:
    | { code?: string; message?: string; request_id?: string; errors?: { field: string; message: string }[] }
    | string;
};

function failureOf(status: number, body: unknown): CliError {
  const parsed = (body ?? {}) as ErrorBody;
  const envelope = typeof parsed.error === 'object' ? parsed.error : undefined;
  const code = envelope?.code ?? parsed.code ?? `http_${status}`;
  const message = envelope?.message ?? parsed.message ?? `HTTP ${status}`;
  const fields = envelope?.errors ?? parsed.errors ?? [];
  const requestId = envelope?.request_id ?? parsed.requestId;
  const detail = fields.map((f) => `\n  - ${f.field}: ${f.message}`).join('');
  return new CliError(`${code}: ${message}${detail}`, { status, code, requestId });
}

type RequestOptions = {
  body?: unknown;
  query?: Record<string, string | undefined>;
  text?: boolean;
  /** Sent as Idempotency-Key, so a retried command has the effect of one. */
  idempotencyKey?: string;
};

export type Client = {
  request<T = unknown>(
    method: string,
    path: string,
    /** `text`: the answer's body as text (a report that is not JSON). */
    options?: RequestOptions,
  ): Promise<T>;
};

/** JSON over HTTP against the gateway with one bearer credential. */
export function createClient(baseUrl: string, token: string | undefined, missingTokenHint: string): Client {
  return {
    async request<T>(method: string, path: string, options: RequestOptions = {}) {
      if (!token) throw new CliError(missingTokenHint);
      const url = new URL(path, `${baseUrl}/`);
      for (const [name, value] of Object.entries(options.query ?? {}))
        if (value !== undefined) url.searchParams.set(name, value);
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: options.text ? '*/*' : 'application/json',
      };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
      let response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
      } catch (error) {
        const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new CliError(
          `cannot reach the gateway at ${baseUrl} (${reason}); is it running (pnpm start)? Set MMP_URL otherwise.`,
        );
      }
      const text = await response.text();
      if (options.text && response.ok) return text as T;
      let body: unknown = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = { message: text.slice(0, 200) };
      }
      if (!response.ok) throw failureOf(response.status, body);
      return body as T;
    },
  };
}
