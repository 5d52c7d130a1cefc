import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** .ci/run installs nats-server; a developer whose NATS runs elsewhere skips such tests. */
export const natsServerInstalled = spawnSync('nats-server', ['--version']).status === 0;

function listening(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export type PrivateNatsServer = {
  url: string;
  port: number;
  /**
   * Stops the server (SIGTERM) and starts it again on the same port and JetStream folder,
   * so streams, consumers and unacknowledged messages survive, as a real restart keeps them.
   */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server (SIGTERM) and removes its folder. */
  stop(): Promise<void>;
};

/**
 * A nats-server of the test's own, on a free port with its own folder: for tests that need
 * a server configured otherwise than the shared one (users and permissions) or one they may
 * stop and start, which the shared server must never be.
 *
 * @param config nats-server configuration (written as JSON, which its parser reads);
 *   `listen` and JetStream's `store_dir` are filled in.
 */
export async function startNatsServer(config: Record<string, unknown> = {}): Promise<PrivateNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mmp-nats-'));
  const port = await freePort();
  const file = join(dir, 'nats.conf');
  writeFileSync(
    file,
    JSON.stringify({ ...config, listen: `127.0.0.1:${port}`, jetstream: { store_dir: join(dir, 'js') } }),
  );
  let server: ChildProcess = await launch(file, port, dir);
  const halt = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    restart: async ({ downMs = 0 } = {}) => {
      await halt();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await launch(file, port, dir);
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function launch(file: string, port: number, dir: string): Promise<ChildProcess> {
  const server = spawn('nats-server', ['-c', file], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nats-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}
