import { Agent, request } from 'undici';
import { signPayload } from '@mmp/protocol';
import type { Exchange } from '../domain/classify.js';

/** An ack is a few hundred bytes; a provider answering megabytes is not answering an ack. */
const MAX_ANSWER_BYTES = 64 * 1024;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export type SignedPost = {
  endpoint: string;
  secret: string;
  event: 'health.check' | 'payment.execute' | 'payout.execute';
  body: string;
  timeoutMs: number;
};

export type ProviderHttp = {
  post(call: SignedPost): Promise<Exchange>;
  close(): Promise<void>;
};

/**
 * Outbound calls to providers. TLS trust is Node's default store, which includes
 * `NODE_EXTRA_CA_CERTS`: a provider behind a private CA is trusted by configuring the
 * process, never by turning verification off.
 */
export function createProviderHttp(): ProviderHttp {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  return {
    async post(call) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const response = await request(call.endpoint, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'x-service-signature': signPayload(call.secret, call.body, timestamp),
            'x-service-timestamp': String(timestamp),
            'x-service-event': call.event,
          },
          body: call.body,
          headersTimeout: call.timeoutMs,
          bodyTimeout: call.timeoutMs,
          signal: AbortSignal.timeout(call.timeoutMs),
        });
        const body = await readLimited(response.body);
        return { kind: 'response', httpStatus: response.statusCode, body, latencyMs: latency() };
      } catch (error) {
        if (isTimeout(error)) return { kind: 'timeout', latencyMs: latency() };
        return { kind: 'unreachable', reason: describe(error), latencyMs: latency() };
      }
    },
    close: () => agent.close(),
  };
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      return '';
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isTimeout(error: unknown): boolean {
  const err = error as { name?: string; code?: string } | null;
  return err?.name === 'TimeoutError' || err?.name === 'AbortError' || TIMEOUT_CODES.has(err?.code ?? '');
}

/** The error code says what went wrong (ECONNREFUSED, a certificate error) without leaking internals. */
function describe(error: unknown): string {
  const err = error as { code?: string; cause?: { code?: string }; message?: string } | null;
  const code = err?.code && err.code !== 'UND_ERR_SOCKET' ? err.code : err?.cause?.code;
  return code ? `connection failed (${code})` : 'connection failed';
}
