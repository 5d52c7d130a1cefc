import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/testing/ports.js';

describe('freePort', () => {
  it('hands out a loopback port below the ephemeral range that a server can listen on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = await listenOn(port);
    await new Promise((resolve) => server.close(resolve));
  });

  it('does not hand out a port something already listens on', async () => {
    const servers: Server[] = [];
    for (let i = 0; i < 20; i++) servers.push(await listenOn(await freePort()));
    const listening = new Set(servers.map((server) => (server.address() as AddressInfo).port));
    for (let i = 0; i < 50; i++) expect(listening.has(await freePort())).toBe(false);
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });
});

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
