import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSystem, freePort } from '@mmp/platform/testing';
import { SERVICE_NAMES } from '@mmp/protocol';
import { api } from './support/http.js';

/**
 * The newcomer's command, `pnpm start`, as a real process tree on built services: every
 * service healthy, a demo project whose keys work, the admin token where the CLI finds it,
 * Ctrl-C stopping everything cleanly, and a restart that keeps what exists.
 */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const system = createTestSystem('start');
const port = await freePort();
const env = {
  ...process.env,
  NATS_URL: system.env.NATS_URL,
  NATS_PREFIX: system.env.NATS_PREFIX,
  DATA_DIR: system.env.DATA_DIR,
  // `pnpm start` runs on its embedded store, whatever MONGO_URL the test run has.
  MONGO_URL: '',
  GATEWAY_PORT: String(port),
  OPS_PORT_BASE: '0',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN: '',
  SERVICE_SECRET_KEY: '',
};

type Started = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** `scripts/start.mjs` itself, or (`viaPnpm`) the whole `pnpm start`, its build included. */
function start(overrides: Record<string, string> = {}, viaPnpm = false): Started {
  const [command, args] = viaPnpm ? ['pnpm', ['start']] : [process.execPath, ['scripts/start.mjs']];
  // Its own process group, like a terminal's foreground job: Ctrl-C signals the whole group.
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...env, ...overrides },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(started: Started, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!started.output().includes(text)) {
    if (Date.now() > deadline || started.child.exitCode !== null) {
      throw new Error(`"${text}" never came:\n${started.output().slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `pnpm mmp …` as a newcomer types it: the admin token comes from the data folder, not the env. */
function mmp(...args: string[]): string {
  return execFileSync('pnpm', ['--silent', 'mmp', ...args], {
    cwd: REPO_ROOT,
    env: { ...env, MMP_URL: `http://127.0.0.1:${port}` },
    encoding: 'utf8',
  });
}

async function stop(started: Started, signal: NodeJS.Signals): Promise<number | null> {
  const { exitCode, signalCode } = started.child;
  if (exitCode === null && signalCode === null) process.kill(-started.child.pid!, signal);
  return started.exited;
}

/** The pid `pnpm start` last printed for a service (its label is coloured). */
function latestPid(output: string, name: string): number | undefined {
  const pattern = new RegExp(`${name}\\s*(?:\\S*\\[0m)? started \\(pid (\\d+)\\)`, 'gu');
  const pids = [...output.matchAll(pattern)].map((match) => Number(match[1]));
  return pids.at(-1);
}

async function waitHealthy(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`not healthy after ${timeoutMs} ms`);
}

let first: Started | undefined;
let second: Started | undefined;

beforeAll(() => {
  // `pnpm start` runs the built services; tests otherwise run on sources. Built as `pnpm
  // start` builds them, through turbo, so sources unchanged since the last build (the
  // image packaging test's, in a full run) are not compiled again.
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
}, 300_000);

afterAll(async () => {
  for (const started of [first, second]) if (started) await stop(started, 'SIGKILL');
  await system.cleanup();
});

describe('pnpm start', () => {
  it('brings every service to healthy and prints a demo project whose keys work at once', async () => {
    first = start();
    await waitFor(first, 'All 8 services healthy');
    await waitFor(first, 'shown this once');
    const secret = first.output().match(/secret\s+(svc_test_sk_[A-Za-z0-9]+)/)?.[1];
    expect(secret).toBeDefined();
    const created = await api(`http://127.0.0.1:${port}`, secret)('POST', '/v1/payments', { amount: 1500 });
    expect(created.status).toBe(201);

    const tokenFile = join(system.env.DATA_DIR!, 'admin-token');
    expect(existsSync(tokenFile)).toBe(true);
    expect(JSON.parse(mmp('project', 'list', '--json'))).toHaveLength(1);
    expect(readFileSync(tokenFile, 'utf8').trim()).toMatch(/^adm_/);
  }, 120_000);

  it('lets a newcomer make a project with mmp, with no setup, whose key pays at once', async () => {
    const shop = JSON.parse(mmp('project', 'create', '--name', 'Shop', '--json')) as {
      keys: { kind: string; livemode: boolean; key: string }[];
    };
    const secret = shop.keys.find((key) => !key.livemode && key.kind === 'secret')!.key;
    const created = await api(`http://127.0.0.1:${port}`, secret)('POST', '/v1/payments', { amount: 2500 });
    expect(created.status).toBe(201);
  }, 60_000);

  it('restarts a crashed service with backoff, saying so, while the others keep serving', async () => {
    const pid = Number(/payments\s*(?:\S*\[0m)? started \(pid (\d+)\)/u.exec(first!.output())?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await waitFor(first!, `payments (pid ${pid}) exited (SIGKILL); restarting in`);
    // The gateway never went away: it answers, degraded, while payments is down.
    const during = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect([200, 503]).toContain(during.status);
    const deadline = Date.now() + 60_000;
    let healthy = false;
    while (!healthy && Date.now() < deadline) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
      healthy = response?.status === 200;
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(healthy, first!.output().slice(-3000)).toBe(true);
    expect(first!.child.exitCode).toBeNull();
  }, 90_000);

  it('restarts a service stopped on its own (SIGTERM to it alone) and leaves the others be', async () => {
    const pids = Object.fromEntries(SERVICE_NAMES.map((name) => [name, latestPid(first!.output(), name)]));
    for (const pid of Object.values(pids)) expect(pid).toBeGreaterThan(0);
    process.kill(pids['provider-router']!, 'SIGTERM');
    await waitFor(first!, `provider-router (pid ${pids['provider-router']}) exited (0); restarting in`);
    const deadline = Date.now() + 60_000;
    while (latestPid(first!.output(), 'provider-router') === pids['provider-router'] && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(latestPid(first!.output(), 'provider-router')).not.toBe(pids['provider-router']);
    await waitHealthy();
    expect(first!.child.exitCode).toBeNull();
    // Every other service is the same process as before: nothing else stopped or restarted.
    for (const name of SERVICE_NAMES.filter((service) => service !== 'provider-router')) {
      expect(latestPid(first!.output(), name), name).toBe(pids[name]);
      expect(() => process.kill(pids[name]!, 0), name).not.toThrow();
    }
  }, 90_000);

  it('stops every service cleanly on Ctrl-C', async () => {
    // The services the earlier tests stopped did say so; from Ctrl-C on, none may.
    const before = first!.output().length;
    expect(await stop(first!, 'SIGINT'), first!.output().slice(-3000)).toBe(0);
    expect(first!.output().slice(before)).not.toMatch(/exited \(/);
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
    expect(health).toBeUndefined();
  }, 30_000);

  it('keeps the data and makes no second demo project on the next start', async () => {
    second = start();
    await waitFor(second, 'All 8 services healthy');
    expect(second.output()).not.toContain('shown this once');
    const projects = await api(
      `http://127.0.0.1:${port}`,
      readFileSync(join(system.env.DATA_DIR!, 'admin-token'), 'utf8').trim(),
    )('GET', '/v1/admin/projects');
    expect((projects.body as { data: { name: string }[] }).data.map((p) => p.name).sort()).toEqual([
      'Shop',
      'demo',
    ]);
    expect(await stop(second, 'SIGTERM'), second.output().slice(-3000)).toBe(0);
  }, 120_000);
});

/** Whether anything accepts a TCP connection on the loopback `port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** A test system of the describe's own; each start it keeps is killed, if still running, after it. */
function useOwnSystem(label: string) {
  const own = createTestSystem(label);
  const kept: Started[] = [];
  afterAll(async () => {
    for (const started of kept) {
      // The whole group, even once its leader exited: what it started may still run.
      try {
        process.kill(-started.child.pid!, 'SIGKILL');
      } catch {
        // Nothing of it runs any more.
      }
    }
    await own.cleanup();
  });
  return { own, keep: (started: Started) => (kept.push(started), started) };
}

describe('pnpm start where no NATS server answers', () => {
  const { own, keep } = useOwnSystem('start-nats');

  it('starts nats-server with JetStream under the data folder, and stops it with the rest on Ctrl-C', async () => {
    const natsPort = await freePort();
    const started = keep(
      start({
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        DATA_DIR: own.dataDir,
        GATEWAY_PORT: String(await freePort()),
      }),
    );
    await waitFor(started, 'All 8 services healthy');
    expect(existsSync(join(own.dataDir, 'nats', 'jetstream'))).toBe(true);
    expect(await stop(started, 'SIGINT'), started.output().slice(-3000)).toBe(0);
    expect(await listening(natsPort)).toBe(false);
  }, 120_000);

  it('stops at once, saying so, when the NATS server there runs without JetStream', async () => {
    const natsPort = await freePort();
    const plain = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' });
    try {
      const deadline = Date.now() + 10_000;
      while (!(await listening(natsPort)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const refused = start({ NATS_URL: `nats://127.0.0.1:${natsPort}`, DATA_DIR: own.dataDir });
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain('runs without JetStream');
      expect(refused.output()).toContain('nats-server -js');
      expect(refused.output()).not.toContain('started (pid');
    } finally {
      plain.kill('SIGKILL');
    }
  }, 30_000);

  it('stops at once with a message saying how to get NATS when nats-server is not installed', async () => {
    // A PATH with a shell and nothing else, so `command -v nats-server` finds nothing.
    const bin = mkdtempSync(join(tmpdir(), 'mmp-no-nats-'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    try {
      const alone = start({
        PATH: bin,
        NATS_URL: `nats://127.0.0.1:${await freePort()}`,
        DATA_DIR: own.dataDir,
      });
      expect(await alone.exited).toBe(1);
      expect(alone.output()).toContain('No NATS server answers at');
      expect(alone.output()).toMatch(/apt-get install nats-server/);
      expect(alone.output()).toMatch(/NATS_URL/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 30_000);
});

/** Whether the process `pid` still runs. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('pnpm start under a supervisor', () => {
  const { own, keep } = useOwnSystem('start-supervised');

  it('stops every service when SIGTERM reaches pnpm alone, as a process manager or an IDE sends it', async () => {
    const gatewayPort = await freePort();
    const started = keep(
      start(
        { NATS_PREFIX: own.env.NATS_PREFIX!, DATA_DIR: own.dataDir, GATEWAY_PORT: String(gatewayPort) },
        true,
      ),
    );
    await waitFor(started, 'All 8 services healthy', 120_000);
    const pids = SERVICE_NAMES.map((name) => latestPid(started.output(), name)!);
    for (const pid of pids) expect(pid).toBeGreaterThan(0);

    // Only pnpm's own pid: nothing signals the rest of its process group.
    process.kill(started.child.pid!, 'SIGTERM');
    await started.exited;
    const deadline = Date.now() + 20_000;
    while (pids.some(running) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pids.filter(running), started.output().slice(-3000)).toEqual([]);
    expect(await listening(gatewayPort)).toBe(false);
  }, 180_000);
});

describe('pnpm start on a port another program holds', () => {
  const { own } = useOwnSystem('start-port-taken');

  it('stops at once, naming the port and how to choose another, and starts nothing', async () => {
    const holder = createServer();
    const taken = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    try {
      const refused = start({ DATA_DIR: own.dataDir, GATEWAY_PORT: String(taken) });
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(`Already in use: 127.0.0.1:${taken} (the gateway)`);
      expect(refused.output()).toMatch(/GATEWAY_PORT=\d+/);
      expect(refused.output()).not.toContain('started (pid');

      // The first service's ops port (OPS_PORT_BASE + 0) is checked the same way.
      const opsRefused = start({
        DATA_DIR: own.dataDir,
        GATEWAY_PORT: String(await freePort()),
        OPS_PORT_BASE: String(taken),
      });
      expect(await opsRefused.exited).toBe(1);
      expect(opsRefused.output()).toContain(`Already in use: 127.0.0.1:${taken} (the ops port of payments)`);
      expect(opsRefused.output()).toMatch(/OPS_PORT_BASE=\d+/);
      expect(opsRefused.output()).not.toContain('started (pid');
    } finally {
      holder.close();
    }
  }, 30_000);
});
