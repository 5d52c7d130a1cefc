#!/usr/bin/env node
// Runs the whole system on one machine: NATS (started if none answers and nats-server is
// installed), every service, and the gateway on http://127.0.0.1:3000/v1. A service that
// crashes is restarted with backoff while the others keep running. Ctrl-C stops all.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { prettyFactory } from 'pino-pretty';
// Built output: `pnpm start` builds every package before it runs this script.
import { SERVICE_NAMES } from '../packages/protocol/dist/index.js';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(root, process.env.DATA_DIR ?? '.data');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const gatewayHost = process.env.GATEWAY_HOST ?? '127.0.0.1';
const gatewayPort = Number(process.env.GATEWAY_PORT ?? 3000);
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${gatewayPort}`;
// The gateway last, so that the ops ports (OPS_PORT_BASE + a service's index) keep their order.
const SERVICES = [...SERVICE_NAMES.filter((name) => name !== 'gateway'), 'gateway'];
const colors = [31, 32, 33, 34, 35, 36, 91, 92, 93];
const children = new Map();
let stopping = false;

// Each service's /healthz, /readyz and /metrics on OPS_PORT_BASE + its index; 0 lets the OS
// pick every one (for runs beside others on one machine, as the tests do).
const opsPortBase = Number(process.env.OPS_PORT_BASE ?? 9101);
mkdirSync(dataDir, { recursive: true });

/** A value kept in the data folder so restarts reuse it and the CLI can find it. */
function persistent(name, envValue, make) {
  if (envValue) return envValue;
  const file = join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, make(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}
const adminToken = persistent(
  'admin-token',
  process.env.ADMIN_TOKEN,
  () => `adm_${randomBytes(24).toString('hex')}`,
);
const serverKey = persistent('server-key', process.env.SERVICE_SECRET_KEY, () =>
  randomBytes(32).toString('hex'),
);

/**
 * The INFO a NATS server sends first on every connection (plain text, even before TLS), or
 * undefined when nothing answers there as a NATS server.
 */
function natsInfo(url) {
  const { hostname, port } = new URL(url.split(',')[0]);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port || 4222) });
    let received = '';
    const finish = (info) => (socket.destroy(), done(info));
    socket.setTimeout(1000);
    socket.on('data', (chunk) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end === -1) return;
      try {
        finish(received.startsWith('INFO ') ? JSON.parse(received.slice(5, end)) : undefined);
      } catch {
        finish(undefined);
      }
    });
    socket.once('error', () => done(undefined));
    socket.once('timeout', () => finish(undefined));
  });
}

const reachable = async (url) => (await natsInfo(url)) !== undefined;

/** Every service keeps its events and orders in JetStream: a server without it would crash them all. */
function requireJetStream(info) {
  if (info.jetstream === true) return;
  console.error(
    `The NATS server at ${natsUrl} runs without JetStream, which every service needs.\n` +
      'Start it with JetStream on (nats-server -js), or point NATS_URL at one that has it.',
  );
  process.exit(1);
}

/** Whether `port` on `host` is free to listen on: tried by listening, then let go at once. */
function free(host, port) {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ host, port }, () => server.close(() => done(true)));
  });
}

/**
 * A service whose port is taken would fail, be restarted again and again, and the start
 * would give up after half a minute with no clear cause, while the sandbox provider
 * registered its rail with whatever program holds the gateway's port. So the ports are
 * checked first, and a taken one stops the start before anything runs.
 */
async function ensurePortsFree() {
  const ports = [{ what: 'the gateway', host: gatewayHost, port: gatewayPort }];
  if (opsPortBase) {
    SERVICES.forEach((service, index) =>
      ports.push({ what: `the ops port of ${service}`, host: '127.0.0.1', port: opsPortBase + index }),
    );
  }
  const taken = [];
  for (const entry of ports) if (!(await free(entry.host, entry.port))) taken.push(entry);
  if (taken.length === 0) return;
  const list = taken.map(({ what, host, port }) => `${host}:${port} (${what})`).join(', ');
  console.error(
    `Already in use: ${list}. Another \`pnpm start\` may be running, or another program holds it.\n` +
      'Stop it, or, if another program holds it, start on other ports: GATEWAY_PORT=3100 OPS_PORT_BASE=9201 pnpm start',
  );
  process.exit(1);
}

async function ensureNats() {
  const info = await natsInfo(natsUrl);
  if (info) return requireJetStream(info);
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  if (which.status !== 0) {
    console.error(
      `No NATS server answers at ${natsUrl} and nats-server is not installed.\n` +
        'Install it (Debian/Ubuntu: sudo apt-get install nats-server; macOS: brew install nats-server)\n' +
        'or point NATS_URL at a NATS server with JetStream enabled.',
    );
    process.exit(1);
  }
  const { hostname, port } = new URL(natsUrl);
  const storeDir = join(dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  // Its own process group: a terminal's Ctrl-C must not stop NATS under services still draining.
  launch(
    'nats',
    which.stdout.trim(),
    ['-js', '-a', hostname, '-p', port || '4222', '-sd', storeDir],
    process.env,
    {
      detached: true,
    },
  );
  for (let i = 0; i < 50 && !(await reachable(natsUrl)); i++) await sleep(100);
  if (!(await reachable(natsUrl))) {
    console.error('nats-server did not start; see its output above.');
    shutdown(1);
  }
}

// Services log JSON lines (for a log pipeline in production); in a terminal each becomes one
// readable line. LOG_FORMAT=json keeps them as they are.
const pretty =
  process.env.LOG_FORMAT === 'json'
    ? null
    : prettyFactory({
        colorize: Boolean(process.stdout.isTTY),
        ignore: 'pid,hostname,service,name',
        translateTime: 'SYS:HH:MM:ss',
        singleLine: true,
      });

function readable(line) {
  if (!pretty || !line.startsWith('{')) return line;
  try {
    return pretty(line).trimEnd();
  } catch {
    return line;
  }
}

/** Restarts of a crashed process wait 1 s, then double, up to 30 s; a minute of calm forgets them. */
const RESTART_BASE_MS = Number(process.env.RESTART_BACKOFF_MS ?? 1000);
const RESTART_MAX_MS = 30_000;
const STABLE_AFTER_MS = 60_000;
/**
 * How long a service's clean exit, or a failure of start-up's own requests, waits for the
 * Ctrl-C that may have caused it before it counts as a death or a fault.
 */
const STOP_SIGNAL_GRACE_MS = 1000;
const crashes = new Map();
const colorOf = new Map();

function launch(name, command, args, env = process.env, options = {}) {
  if (!colorOf.has(name)) colorOf.set(name, colors[colorOf.size % colors.length]);
  const label = `\x1b[${colorOf.get(name)}m${name.padEnd(20)}\x1b[0m`;
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const startedAt = Date.now();
  const relay = (stream, out) => {
    let buffer = '';
    stream.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) out.write(`${label} ${readable(line)}\n`);
    });
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  const restart = (code, signal) => {
    if (stopping) return;
    const earlier = Date.now() - startedAt > STABLE_AFTER_MS ? 0 : (crashes.get(name) ?? 0);
    crashes.set(name, earlier + 1);
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** earlier);
    console.error(
      `${name} (pid ${child.pid}) exited (${signal ?? code}); restarting in ${delay} ms (crash ${earlier + 1} in a row); the other services keep running.`,
    );
    setTimeout(() => {
      if (!stopping) launch(name, command, args, env, options);
    }, delay).unref();
  };
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (stopping) return;
    // A terminal's Ctrl-C reaches every service of the group too, and one that stopped
    // cleanly may be seen before our own SIGINT: a clean exit is a stop only if that signal
    // follows. A service stopped on its own (an operator's SIGTERM) is restarted.
    if (code === 0) return void setTimeout(() => restart(code, signal), STOP_SIGNAL_GRACE_MS);
    restart(code, signal);
  });
  children.set(name, child);
  console.log(`${label} started (pid ${child.pid})`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const shutdownDeadlineMs = Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000) + 5_000;

function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  // Services first, NATS last, so services drain against a live server.
  const order = [...children.keys()].filter((n) => n !== 'nats');
  for (const name of order) children.get(name)?.kill('SIGTERM');
  const finish = () => {
    children.get('nats')?.kill('SIGTERM');
    setTimeout(() => process.exit(code), 300);
  };
  const wait = setInterval(() => {
    if ([...children.keys()].every((n) => n === 'nats')) {
      clearInterval(wait);
      finish();
    }
  }, 100);
  // Past the services' own drain deadline (SHUTDOWN_TIMEOUT_MS, after which they exit by
  // themselves), whatever is left is killed.
  setTimeout(() => {
    console.error(`still running, killed: ${[...children.keys()].join(', ')}`);
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(code || 1);
  }, shutdownDeadlineMs).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function waitHealthy() {
  const deadline = Date.now() + 30_000;
  let last;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/health`);
      last = await response.json();
      if (response.ok && last.status === 'ok') return last;
    } catch {
      // not up yet
    }
    await sleep(300);
  }
  if (!last) {
    throw new Error(
      `The gateway did not answer at http://127.0.0.1:${gatewayPort}/v1/health within 30 s; its lines above say why.`,
    );
  }
  const down = Object.entries(last.services ?? {}).filter(([, state]) => state !== 'ok');
  throw new Error(
    `Not every service was healthy within 30 s (${down.map(([name, state]) => `${name}: ${state}`).join(', ')}); their lines above say why.`,
  );
}

/** On a system with no project yet (a fresh data folder or database), makes the demo one. */
async function createDemoProject() {
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const existing = await fetch(`http://127.0.0.1:${gatewayPort}/v1/admin/projects`, { headers: admin });
  if (!existing.ok || (await existing.json()).data?.length) return;
  const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/admin/projects`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'demo', displayName: 'Demo Shop' }),
  });
  if (!response.ok)
    return console.error(`could not create the demo project: ${response.status} ${await response.text()}`);
  const project = await response.json();
  const keys = project.keys ?? [];
  const show = (kind) =>
    keys.find((k) => k.livemode === false && k.kind === kind)?.key ?? '(see mmp keys list)';
  console.log(
    `\nDemo project ${project.id} created. Its sandbox keys are shown this once:\n` +
      `  secret      ${show('secret')}\n  publishable ${show('publishable')}\n`,
  );
}

const baseEnv = {
  ...process.env,
  NATS_URL: natsUrl,
  DATA_DIR: dataDir,
  ADMIN_TOKEN: adminToken,
  SERVICE_SECRET_KEY: serverKey,
  PUBLIC_URL: publicUrl,
  GATEWAY_PORT: String(gatewayPort),
  // The sandbox provider registers its rail through the gateway's public API.
  GATEWAY_URL: process.env.GATEWAY_URL ?? `http://127.0.0.1:${gatewayPort}`,
  OPS_HOST: '127.0.0.1',
  // A local run: a provider adapter under development (the kit's example) or a merchant's
  // webhook receiver may listen on http://127.0.0.1. Loopback only; set it to false to try
  // the production rule.
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: process.env.ALLOW_HTTP_LOOPBACK_ENDPOINTS ?? 'true',
  // No ingress to wait for on one machine: a stop stops at once.
  SHUTDOWN_DELAY_MS: process.env.SHUTDOWN_DELAY_MS ?? '0',
};

await ensurePortsFree();
await ensureNats();
SERVICES.forEach((service, index) => {
  const main = join(root, 'services', service, 'dist', 'bundle', 'main.mjs');
  launch(service, process.execPath, [main], {
    ...baseEnv,
    OPS_PORT: String(opsPortBase && opsPortBase + index),
  });
});
try {
  const health = await waitHealthy();
  console.log(
    `\nAll ${Object.keys(health.services ?? {}).length} services healthy. API: ${publicUrl}/v1  docs: ${publicUrl}/docs`,
  );
  console.log(`Admin CLI: pnpm mmp --help (admin token in ${join(dataDir, 'admin-token')})`);
  await createDemoProject();
} catch (error) {
  // Ctrl-C signals the whole process group: the gateway may stop, and fail the demo project's
  // request, a moment before our own SIGINT handler has run. Such a failure is the stop the
  // user asked for, not a fault to report with exit code 1.
  await sleep(STOP_SIGNAL_GRACE_MS);
  if (!stopping) {
    console.error(String(error));
    shutdown(1);
  }
}
