import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES } from '@mmp/protocol';
import { createTestSystem, eventually, freePort, type TestSystem } from '@mmp/platform/testing';
import { startChild, stopChild } from './processes.js';
import { SYSTEM_ENV_VARIABLE, type Mode } from './config.js';
import type { TargetReady } from './target.js';
import { youngGenerationOf, type YoungGenerations } from './idle.js';

/**
 * The system under test in one of its two shapes (`Mode`). Both use the shared NATS server
 * under their own prefix and a temporary data folder with the embedded store.
 */
export type SystemUnderTest = {
  mode: Mode;
  baseUrl: string;
  adminToken: string;
  /** The processes running services: one in-process, one per service otherwise. */
  servicePids: Record<string, number>;
  /** Each service's young generation, from its ops port; not in one process. */
  youngGenerations?: YoungGenerations;
  stop(): Promise<void>;
};

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNLIMITED = String(1_000_000_000);
const START_TIMEOUT_MS = 90_000;

/**
 * Settings that make the numbers about the path: no logs (unless a run is diagnosed), no
 * rate limit, an instant sandbox.
 */
export function benchEnv(sandboxPollMs: number, logLevel = 'silent'): Record<string, string> {
  return {
    LOG_LEVEL: logLevel,
    RATE_LIMIT_KEY_MAX: UNLIMITED,
    RATE_LIMIT_IP_MAX: UNLIMITED,
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // The flow times the system, not a simulated payer: the success number it pays with
    // settles at once (200 ms by default), and so would any other number.
    SANDBOX_LISTED_DELAY_MS: '0',
    SANDBOX_DELAY_MS: '0',
    SANDBOX_POLL_MS: String(sandboxPollMs),
  };
}

export async function startInProcess(env: Record<string, string>): Promise<SystemUnderTest> {
  const target = await startChild<TargetReady>('./target.ts', { [SYSTEM_ENV_VARIABLE]: JSON.stringify(env) });
  return {
    mode: 'in-process',
    baseUrl: target.ready.baseUrl,
    adminToken: target.ready.adminToken,
    servicePids: { 'system (all services)': target.child.pid as number },
    stop: () => stopChild(target.child),
  };
}

/** Builds every package as `pnpm start` does, so the processes run what production runs. */
export function buildServices(): void {
  const built = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`the build failed (exit ${built.status})`);
}

export type ProcessOptions = {
  env: Record<string, string>;
  /** Runs over this test system's prefix and data folder and leaves them for the caller. */
  reuse?: TestSystem;
  adminToken?: string;
};

export type ProcessSystem = SystemUnderTest & {
  /** Milliseconds from spawn to each service's ready answer on its ops port (`/readyz`). */
  startMs: Record<string, number>;
};

async function waitReady(
  children: Map<string, ChildProcess>,
  opsPorts: Record<string, number>,
  output: Map<string, string>,
): Promise<Record<string, number>> {
  const spawnedAt = performance.now();
  const startMs: Record<string, number> = {};
  await eventually(
    async () => {
      for (const [name, child] of children) {
        if (child.exitCode !== null) throw new Error(`${name} exited:\n${output.get(name) ?? ''}`);
        if (startMs[name] !== undefined) continue;
        const ready = await fetch(`http://127.0.0.1:${opsPorts[name]}/readyz`).catch(() => undefined);
        if (ready?.ok) startMs[name] = Math.round(performance.now() - spawnedAt);
      }
      return Object.keys(startMs).length === children.size;
    },
    START_TIMEOUT_MS,
    50,
  );
  return startMs;
}

async function youngGenerationsOf(opsPorts: Record<string, number>) {
  const read = async (port: number) => {
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
    return metrics?.ok ? youngGenerationOf(await metrics.text()) : undefined;
  };
  const entries = Object.entries(opsPorts).map(async ([name, port]) => [name, await read(port)] as const);
  return Object.fromEntries(await Promise.all(entries));
}

/** Each service from its bundle, `services/<name>/dist/bundle/main.mjs`, with `pnpm start`'s environment. */
export async function startProcesses(options: ProcessOptions): Promise<ProcessSystem> {
  const test = options.reuse ?? createTestSystem('bench');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = options.adminToken ?? `adm_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...test.env,
    ADMIN_TOKEN: adminToken,
    GATEWAY_PORT: String(port),
    GATEWAY_HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    GATEWAY_URL: baseUrl,
    ...options.env,
  };
  const children = new Map<string, ChildProcess>();
  const output = new Map<string, string>();
  const opsPorts: Record<string, number> = {};
  // A port drawn free is not held until its service listens: one drawn twice would fail a start.
  const taken = new Set([port]);
  for (const name of SERVICE_NAMES) {
    let opsPort: number;
    do opsPort = await freePort();
    while (taken.has(opsPort));
    taken.add(opsPort);
    opsPorts[name] = opsPort;
    // BENCH_CPU_PROF_DIR: each service writes a V8 CPU profile there when it stops
    // (`--cpu-prof` is refused in NODE_OPTIONS), to see which service spends what.
    const profile = process.env.BENCH_CPU_PROF_DIR
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`,
          `--cpu-prof-name=${name}.cpuprofile`,
        ]
      : [];
    const child = spawn(process.execPath, [...profile, `services/${name}/dist/bundle/main.mjs`], {
      cwd: REPO_ROOT,
      env: { ...env, OPS_PORT: String(opsPorts[name]) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => output.set(name, ((output.get(name) ?? '') + chunk).slice(-3000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.set(name, child);
  }
  const stop = async () => {
    await Promise.all([...children.values()].map((child) => stopChild(child, () => child.kill('SIGTERM'))));
    if (!options.reuse) await test.cleanup();
  };
  try {
    const startMs = await waitReady(children, opsPorts, output);
    await eventually(async () => (await fetch(`${baseUrl}/v1/health`)).ok, START_TIMEOUT_MS, 100);
    return {
      mode: 'processes',
      baseUrl,
      adminToken,
      startMs,
      servicePids: Object.fromEntries([...children].map(([name, child]) => [name, child.pid as number])),
      youngGenerations: () => youngGenerationsOf(opsPorts),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
