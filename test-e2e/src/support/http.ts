import { createServer, type IncomingMessage, type Server } from 'node:http';
import { expect } from 'vitest';

/** A value, or how to read it when it is needed (a system a test file starts later). */
type Later<T> = T | (() => T);
const now = <T>(value: Later<T>): T => (value instanceof Function ? value() : value);

/** Calls the gateway like a merchant backend or the hosted page would. */
export function api(baseUrl: Later<string>, key?: Later<string | undefined>) {
  return async function request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const bearer = key === undefined ? undefined : now(key);
    const response = await fetch(`${now(baseUrl)}${path}`, {
      method,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // pages and assets are not JSON
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

/** A payment the merchant creates, which must be created (201): its token and hosted page. */
export async function createPayment(merchant: ReturnType<typeof api>, body: Record<string, unknown>) {
  const created = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', body);
  expect(created.status).toBe(201);
  return created.body;
}

export type ReceivedWebhook = { headers: IncomingMessage['headers']; rawBody: string };

/** A merchant's webhook receiver: a real HTTP server that records what it is sent. */
export async function startWebhookReceiver(): Promise<{
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    let rawBody = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (rawBody += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, rawBody });
      response.writeHead(200).end('ok');
    });
  });
  const listening = await listenLocally(server);
  return { url: `${listening.url}/webhooks`, received, close: listening.close };
}

/** A webhook receiver the merchant has made an endpoint of, for `enabledEvents`; `secret` signs what it is sent. */
export async function startWebhookEndpoint(merchant: ReturnType<typeof api>, enabledEvents: string[]) {
  const receiver = await startWebhookReceiver();
  const endpoint = await merchant<{ secret: string }>('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    enabledEvents,
  });
  if (endpoint.status !== 201) await receiver.close();
  expect(endpoint.status).toBe(201);
  return { ...receiver, secret: endpoint.body.secret };
}

/** Serves `server` on a free loopback port. */
export async function listenLocally(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
