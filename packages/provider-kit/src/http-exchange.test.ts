import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { freePort, makeTestCertificate } from '@mmp/platform/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { exchangeHttp } from './http-exchange.js';

const servers: Server[] = [];

async function serve(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

describe('exchangeHttp', () => {
  it('sends the method, headers and exact body, and returns the status and whole answer', async () => {
    let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const host = await serve(
      createServer(async (request, response) => {
        seen = { method: request.method, headers: request.headers, body: await readBody(request) };
        response.writeHead(422, { 'content-type': 'application/json' });
        // An answer in several writes arrives whole.
        response.write('{"error":{"code":"inv');
        response.end('alid","message":"Montant refusé"}}');
      }),
    );
    const body = JSON.stringify({ description: 'Café, thé et sucre' });
    const answer = await exchangeHttp(`http://${host}/v1/orders?status=pending`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk_test' },
      body,
      timeoutMs: 2_000,
    });
    expect(answer).toEqual({
      status: 422,
      text: '{"error":{"code":"invalid","message":"Montant refusé"}}',
    });
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.headers?.['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers?.authorization).toBe('Bearer sk_test');
  });

  it('sends no body and no content-length on a GET', async () => {
    let seen: IncomingMessage['headers'] = {};
    const host = await serve(
      createServer((request, response) => {
        seen = request.headers;
        response.end('');
      }),
    );
    const answer = await exchangeHttp(`http://${host}/`, { method: 'GET', headers: {}, timeoutMs: 2_000 });
    expect(answer).toEqual({ status: 200, text: '' });
    expect(seen['content-length']).toBeUndefined();
    expect(seen['transfer-encoding']).toBeUndefined();
  });

  it('rejects once the timeout passes, whether no answer or only part of one came', async () => {
    const host = await serve(
      createServer((request, response) => {
        if (request.url === '/partly') response.write('{"orders":[');
      }),
    );
    for (const path of ['/silent', '/partly']) {
      const started = Date.now();
      await expect(
        exchangeHttp(`http://${host}${path}`, { method: 'GET', headers: {}, timeoutMs: 200 }),
      ).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it('rejects at once when the connection breaks in the middle of the answer', async () => {
    const host = await serve(
      createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"orders":[', () => response.socket?.destroy());
      }),
    );
    const started = Date.now();
    await expect(
      exchangeHttp(`http://${host}/`, { method: 'GET', headers: {}, timeoutMs: 10_000 }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects when nothing listens', async () => {
    await expect(
      exchangeHttp(`http://127.0.0.1:${await freePort()}/`, { method: 'GET', headers: {}, timeoutMs: 2_000 }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('speaks TLS to an https URL, and refuses a certificate it does not trust', async () => {
    const certificate = makeTestCertificate();
    try {
      const host = await serve(
        createTlsServer({ key: certificate.key, cert: certificate.cert }, (_request, response) =>
          response.end('{}'),
        ),
      );
      await expect(
        exchangeHttp(`https://${host}/`, { method: 'GET', headers: {}, timeoutMs: 2_000 }),
      ).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    } finally {
      certificate.remove();
    }
  });
});
