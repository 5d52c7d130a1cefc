import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port the OS just handed out and released. A fixed or random port collides
 * with the sockets of test files running beside it; a port the OS chose does not.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
