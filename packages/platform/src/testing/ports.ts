import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

// Below the kernel's ephemeral range (Linux 32768–60999, macOS 49152–65535): a port taken
// from that range and released can be reused as the source port of any outbound socket of
// a test file running beside us before our server listens on it (seen in CI as EADDRINUSE).
const LOWEST = 20_000;
const HIGHEST = 32_000;

/**
 * A loopback port nothing listens on, drawn at random below the ephemeral range so that
 * neither outbound sockets nor parallel test files are likely to take it before it is used.
 */
export async function freePort(draw: () => number = () => randomInt(LOWEST, HIGHEST)): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = draw();
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port found between ${LOWEST} and ${HIGHEST}`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
