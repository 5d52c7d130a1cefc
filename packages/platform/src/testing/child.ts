import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { pingOperation, type ServiceName } from '@mmp/protocol';
import type { Naming } from '../nats.js';
import { createTestBus } from './bus.js';
import { eventually } from './eventually.js';

/** A service running as its own process, as its `main.ts` runs in production. */
export type ChildService = {
  pid: number;
  /** Resolves when the process has exited, with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGKILL unless told; SIGTERM under CHILD_CPU_PROF) and waits for the process to be gone. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits until the service answers its `ping` over NATS, or fails with its last output. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** The last lines it wrote, for a failing test's message. */
  output(): string;
};

/** A TypeScript file run with tsx in a process of its own, as a test's fixture. */
export function spawnTypeScript(file: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), (output += chunk.toString())));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, output: () => output };
}

/**
 * Runs `main` (a service's `src/main.ts`) with tsx in a child process, for tests that kill
 * and restart a service or need process-wide settings such as NODE_EXTRA_CA_CERTS.
 * Readiness is its `ping` answered on `nc` under `naming`.
 */
export function spawnServiceProcess(options: {
  name: ServiceName;
  main: string;
  env: Record<string, string | undefined>;
  nc: () => Promise<NatsConnection>;
  naming: Naming;
  cwd?: string;
  /** A file that also gets everything the process writes (appended), kept after it exits. */
  logFile?: string;
}): ChildService {
  // CHILD_CPU_PROF=<dir>: each service writes a V8 CPU profile there when it stops (stopped
  // with SIGTERM then, since a killed process writes none), to find where a soak's time goes.
  const profileDir = process.env.CHILD_CPU_PROF;
  const prof = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child = spawn(process.execPath, [...prof, '--conditions=source', '--import', 'tsx', options.main], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  if (options.logFile) {
    const file = createWriteStream(options.logFile, { flags: 'a' });
    child.stdout.pipe(file, { end: false });
    child.stderr.pipe(file, { end: false });
    child.once('close', () => file.end());
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  async function ping(timeoutMs: number): Promise<boolean> {
    const bus = createTestBus(await options.nc(), options.naming);
    return bus.request(pingOperation(options.name), {}, { timeoutMs }).then(
      () => true,
      () => false,
    );
  }
  return {
    pid: child.pid ?? -1,
    exited,
    async kill(signal: NodeJS.Signals = prof.length ? 'SIGTERM' : 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async waitReady(timeoutMs = 20_000) {
      const died = exited.then(({ code, signal }) => {
        throw new Error(`${options.name} exited (${signal ?? code}) before it was ready:\n${tail}`);
      });
      died.catch(() => undefined);
      const ready = eventually(() => ping(500), timeoutMs, 100).catch((error: unknown) => {
        throw new Error(`${options.name} not ready: ${String(error)}\n${tail}`);
      });
      await Promise.race([ready, died]);
    },
    output: () => tail,
  };
}
