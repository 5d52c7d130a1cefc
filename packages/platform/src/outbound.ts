import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent, request as undiciRequest } from 'undici';
import { isLoopbackAddress, isPrivateAddress } from './addresses.js';

/**
 * The one way the system calls out over HTTP: merchant webhooks, provider orders and
 * health checks, and merchants' logos. Every call:
 * - reaches public addresses only, judged when the socket connects (the address actually
 *   dialled), so a name that resolves public when saved and private later (DNS rebinding)
 *   is refused; an address written in the URL is judged before any connection;
 * - is `https:`, except on loopback when the development switch allows it;
 * - has one deadline for the whole exchange and a cap on the answer it reads;
 * - never follows a redirect;
 * - reports a failure as a coarse class, never the remote host's own error text.
 */

/** Resolves a name to its addresses; tests give their own, never the outside DNS. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export type OutboundPolicy = {
  /**
   * Development and tests only: loopback hosts (127.0.0.0/8, ::1, localhost) may be called,
   * over http too. Private, link-local and every other internal range stay refused.
   */
  allowLoopback: boolean;
  resolve?: Resolve;
};

/** Why a URL may never be called, or null: checked at creation of what holds it, and again before calling. */
export function outboundUrlRefusal(
  raw: string,
  policy: Pick<OutboundPolicy, 'allowLoopback'>,
): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.username || url.password) return 'credentials in the URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = policy.allowLoopback && isLoopbackHost(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'not https';
  if (isIP(host) && isPrivateAddress(host) && !loopback) return 'private address';
  if (host === 'localhost' && !loopback) return 'private address';
  return null;
}

/** `localhost` and loopback addresses in any form a URL may write them. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host));
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The connect-time lookup: every address a name resolves to must be public (or loopback when allowed). */
function publicOnlyLookup(policy: OutboundPolicy) {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = (address: string) =>
          !isPrivateAddress(address) || (policy.allowLoopback && isLoopbackAddress(address));
        if (addresses.length === 0 || !addresses.every((entry) => allowed(entry.address))) {
          return callback(Object.assign(new Error('private address'), { code: 'EPRIVATE' }), []);
        }
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => callback(error, []),
    );
  };
}

export type OutboundRequest = {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange: connect, headers and body. */
  timeoutMs: number;
  /** The most of the answer's body read; a longer one is cut and flagged. */
  maxBodyBytes?: number;
};

/** Coarse reasons a call failed: what a log or a merchant may be shown. */
export type OutboundFailure =
  | 'not a URL'
  | 'credentials in the URL'
  | 'not https'
  | 'private address'
  | 'name not found'
  | 'connection refused'
  | 'connection reset'
  | 'tls error'
  | 'connection failed';

export type OutboundExchange =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
      /** The answer was longer than maxBodyBytes: `body` holds only its start. */
      truncated: boolean;
      latencyMs: number;
    }
  | { kind: 'timeout'; latencyMs: number }
  | { kind: 'failed'; reason: OutboundFailure; latencyMs: number };

export type OutboundHttp = {
  send(call: OutboundRequest): Promise<OutboundExchange>;
  close(): Promise<void>;
};

const DEFAULT_MAX_BODY = 64 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * An HTTP client under the rules above, with keep-alive connections. TLS trust is Node's
 * default store, which includes `NODE_EXTRA_CA_CERTS`: a peer behind a private CA is
 * trusted by configuring the process, never by turning verification off.
 */
export function createOutboundHttp(policy: OutboundPolicy): OutboundHttp {
  // undici loads on the first call out, so a service that has not called anyone yet (or
  // never does) does not carry it in memory.
  let client: Promise<{ agent: Agent; request: typeof undiciRequest }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({ keepAliveTimeout: 4_000, connect: { lookup: publicOnlyLookup(policy) } }),
      request,
    })));
  return {
    async send(call) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const refusal = outboundUrlRefusal(call.url, policy);
      if (refusal) return { kind: 'failed', reason: refusal as OutboundFailure, latencyMs: 0 };
      const deadline = AbortSignal.timeout(call.timeoutMs);
      try {
        const { agent, request } = await connect();
        const response = await request(call.url, {
          method: call.method ?? 'POST',
          dispatcher: agent,
          headers: call.headers,
          body: call.body,
          headersTimeout: call.timeoutMs,
          bodyTimeout: call.timeoutMs,
          signal: deadline,
        });
        const { body, truncated } = await readCapped(response.body, call.maxBodyBytes ?? DEFAULT_MAX_BODY);
        return {
          kind: 'response',
          status: response.statusCode,
          headers: response.headers,
          body,
          truncated,
          latencyMs: latency(),
        };
      } catch (error) {
        if (isTimeout(error) || deadline.aborted) return { kind: 'timeout', latencyMs: latency() };
        return { kind: 'failed', reason: failureOf(error), latencyMs: latency() };
      }
    },
    close: async () => {
      if (client) await (await client).agent.close();
    },
  };
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  cap: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > cap) {
      chunks.push(chunk.subarray(0, cap - size));
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function isTimeout(error: unknown): boolean {
  const err = error as { name?: string; code?: string } | null;
  return err?.name === 'TimeoutError' || err?.name === 'AbortError' || TIMEOUT_CODES.has(err?.code ?? '');
}

function failureOf(error: unknown): OutboundFailure {
  const err = error as { code?: string; cause?: { code?: string } } | null;
  const code = err?.code && err.code !== 'UND_ERR_SOCKET' ? err.code : (err?.cause?.code ?? '');
  if (code === 'EPRIVATE') return 'private address';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'name not found';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code)) return 'tls error';
  return 'connection failed';
}
