import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { eventually, freePort } from '@mmp/platform/testing';

/** The folder of the repository, where the packaging script runs. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Runs the images' packaging step for `services` into `<target>/<service>`. */
export function packageServices(target: string, services: readonly string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [resolve(REPO_ROOT, 'deploy/scripts/package-services.mjs'), target, ...services],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (code) => (code === 0 ? done(output) : fail(new Error(`packaging failed:\n${output}`))));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type PackagedService = {
  service: string;
  pid: number;
  /** The ops port it reported in its "service started" log line. */
  opsPort: Promise<number>;
  exited: Promise<number | null>;
  /** Waits until its /readyz answers 200 (its ops port is read from its info log line). */
  waitReady(timeoutMs?: number): Promise<void>;
  /** Resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** SIGTERM, as Kubernetes stops a pod; resolves with the exit code. */
  stop(): Promise<number | null>;
  output(): string;
};

/**
 * Starts a packaged service as its image does: `node dist/bundle/main.mjs` in its folder, with only
 * the environment given (no workspace, no source conditions, NODE_ENV=production).
 */
export function startPackaged(folder: string, service: string, env: Record<string, string>): PackagedService {
  const child = spawn(process.execPath, ['dist/bundle/main.mjs'], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let lines = '';
  let reportPort: (port: number) => void = () => undefined;
  const opsPort = new Promise<number>((found) => (reportPort = found));
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-6000));
  child.stderr.on('data', keep);
  child.stdout.on('data', (chunk: Buffer) => {
    keep(chunk);
    lines += chunk.toString('utf8');
    const complete = lines.split('\n');
    lines = complete.pop() ?? '';
    for (const line of complete) {
      const port = /"opsPort":(\d+)/.exec(line)?.[1];
      if (port) reportPort(Number(port));
    }
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const status = (field: string) => {
    const value = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${child.pid}/status`, 'utf8'),
    )?.[1];
    return Math.round(Number(value) / 1024);
  };
  return {
    service,
    pid: child.pid ?? -1,
    opsPort,
    exited,
    async waitReady(timeoutMs = 30_000) {
      const died = exited.then((code) => {
        throw new Error(`${service} exited (${code}) before it was ready:\n${tail}`);
      });
      died.catch(() => undefined);
      const ready = (async () => {
        const port = await eventually(() => Promise.race([opsPort, sleep(100).then(() => 0)]), timeoutMs);
        await eventually(
          async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
          timeoutMs,
          200,
        ).catch((error: unknown) => {
          throw new Error(`${service} not ready: ${String(error)}\n${tail}`);
        });
      })();
      await Promise.race([ready, died]);
    },
    memory: () => ({ rssMiB: status('VmRSS'), peakMiB: status('VmHWM') }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    output: () => tail,
  };
}

/**
 * Every packaged service of `target` started as one system (in SERVICES order) on one NATS
 * prefix, each with its own data folder under `system.dataDir`, the gateway on a free port.
 */
export async function startPackagedSystem(
  target: string,
  system: { env: Record<string, string>; dataDir: string },
  services: readonly string[],
  extraEnv: Record<string, string> = {},
) {
  const gatewayPort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const adminToken = `adm_packaged_${randomBytes(12).toString('hex')}`;
  const env = {
    ...system.env,
    ADMIN_TOKEN: adminToken,
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    PUBLIC_URL: gatewayUrl,
    GATEWAY_URL: gatewayUrl,
    LOG_LEVEL: 'info',
    SANDBOX_POLL_MS: '200',
    ...extraEnv,
  };
  const running = services.map((service) => {
    const dataDir = join(system.dataDir, service);
    mkdirSync(dataDir, { recursive: true });
    return startPackaged(join(target, service), service, { ...env, DATA_DIR: dataDir });
  });
  return { gatewayUrl, adminToken, running };
}
