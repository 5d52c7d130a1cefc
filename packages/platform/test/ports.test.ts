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

  it('passes over a port something already listens on, and says so when it finds none', async () => {
    const busy = await listenOn(await freePort());
    const busyPort = (busy.address() as AddressInfo).port;
    const free = await freePort();
    const draws = [busyPort, busyPort, free];
    expect(await freePort(() => draws.shift()!)).toBe(free);
    await expect(freePort(() => busyPort)).rejects.toThrow('no free loopback port');
    await new Promise((resolve) => busy.close(resolve));
  });
});

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
