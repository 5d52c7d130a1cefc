import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a child process reports once it listens, or why it could not. */
export type ChildMessage<T> = ({ kind: 'ready' } & T) | { kind: 'failed'; error: string };

const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * Runs one side of the measurement in its own process (own event loop), with the same
 * Node flags as this one and `env` added to its environment, and waits for its `ready` message.
 */
export function startChild<T>(
  entry: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), [], {
    execArgv: process.execArgv,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${entry} did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.once('message', (message: ChildMessage<T>) => {
      clearTimeout(timer);
      if (message.kind === 'ready') resolve({ child, ready: message });
      else reject(new Error(`${entry} failed to start:\n${message.error}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with code ${code} before it was ready`));
    });
  });
}

/**
 * Asks the child to clean up and exit (by IPC unless told how); kills it if it does not
 * within the time limit.
 */
export function stopChild(child: ChildProcess, ask: () => unknown = () => child.send('stop')): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    ask();
  });
}

/** In a child: reports readiness, and runs `stop` once when the parent asks or goes away. */
export function serveChild<T>(start: () => Promise<{ ready: T; stop: () => Promise<void> }>): void {
  const send = (message: ChildMessage<T>) => process.send?.(message);
  start().then(
    ({ ready, stop }) => {
      let stopping = false;
      const shutdown = () => {
        if (stopping) return;
        stopping = true;
        stop()
          .catch((error: unknown) => console.error('stopping:', error))
          .finally(() => process.exit(0));
      };
      process.on('message', (message) => message === 'stop' && shutdown());
      process.on('disconnect', shutdown);
      send({ kind: 'ready', ...ready });
    },
    (error: unknown) => {
      send({
        kind: 'failed',
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      process.exit(1);
    },
  );
}
