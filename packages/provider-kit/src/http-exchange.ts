import { request as requestHttp } from 'node:http';
import { request as requestHttps } from 'node:https';

export type HttpExchange = {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, answer included, must end within this. */
  timeoutMs: number;
};

export type HttpAnswer = { status: number; text: string };

/**
 * One request and its whole answer, through Node's own HTTP client (its global agent keeps
 * connections alive). An adapter makes one call at a time to one service, which needs
 * nothing more; undici, the client before, took 18 MB or more of an adapter's memory,
 * since its entry loads fetch, WebSocket, caching and mocks with it (docs/decisions.md).
 * Rejects on a connection error or when `timeoutMs` passes.
 */
export function exchangeHttp(url: string, exchange: HttpExchange): Promise<HttpAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? requestHttps : requestHttp;
  const headers =
    exchange.body === undefined
      ? exchange.headers
      : { ...exchange.headers, 'content-length': String(Buffer.byteLength(exchange.body)) };
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      { method: exchange.method, headers, signal: AbortSignal.timeout(exchange.timeoutMs) },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(exchange.body);
  });
}
