import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '@mmp/platform/testing';
import { startSystem, type RunningSystem } from './support/system.js';
import { mmpAgainst, webhookRailArgs } from './support/mmp.js';
import { outcomeOf, paySandbox } from './support/sandbox-payments.js';

/**
 * The kit as a provider uses it outside this repository: the guide's commands pack it and
 * install it in a project of their own (a folder of the OS's temporary directory), the
 * guide's code blocks are that project's files as written, and they run from there with
 * `npx tsx` against the whole system: a webhook adapter and a pull adapter each get a
 * sandbox payment and settle it. The packed example adapter runs from there too.
 */
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'packages/provider-kit/README.md'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'mmp-kit-standalone-'));
const project = join(scratch, 'acme-adapter');
const packed = join(scratch, 'packed');
let system: RunningSystem;
const { mmp, mmpJson } = mmpAgainst(() => system);
const started: { child: ChildProcess; output: () => string }[] = [];

type Provider = { id: string; apiKey: string; signingSecret: string };

/** The guide's code blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/**
 * A shell line of the guide, run where the guide runs it; its fixed `/tmp` is this test's
 * folder. npm answers from its cache when it can, so a repeated run barely needs the registry.
 */
async function shell(line: string, cwd: string) {
  const env = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false' };
  await run('sh', ['-c', line.replaceAll('/tmp', packed)], { cwd, env, timeout: 180_000 });
}

/** A long-running command of the project (its own process group, so it stops whole). */
function start(command: string, args: string[], env: Record<string, string>, ready: string) {
  const child = spawn(command, args, {
    cwd: project,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const handle = { child, output: () => output };
  started.push(handle);
  return eventually(async () => output.includes(ready) && handle, 30_000);
}

async function stopAll() {
  for (const { child } of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

/** A new shop's sandbox payment paid with the Orange success number, once it ended. */
async function sandboxPayment() {
  const shop = await system.createProject('Standalone Shop');
  return outcomeOf((await paySandbox(system.baseUrl, shop.testSecretKey, '+237690000001')).read);
}

beforeAll(async () => {
  mkdirSync(project);
  mkdirSync(packed);
  // "Where your adapter lives": pack in the repository, set the project up outside it.
  const [pack, setUp] = blocks('sh');
  await shell(pack!, root);
  for (const line of setUp!.trim().split('\n')) await shell(line, project);
  for (const block of blocks('ts')) {
    const file = /^\/\/ file: (\S+)\n/.exec(block)?.[1];
    if (file) writeFileSync(join(project, file), block);
  }
  system = await startSystem();
}, 300_000);

afterEach(stopAll);
afterAll(async () => {
  await stopAll();
  await system?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the provider kit outside this repository', () => {
  it('is packed with a build and registry dependencies only, and its types check in the project', async () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/@mmp/provider-kit/package.json'), 'utf8'),
    );
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|catalog:|@mmp\/protocol/);
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['libphonenumber-js', 'uuid', 'zod']);
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(Object.keys(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies)).toEqual(
      ['@mmp/provider-kit'],
    );
    const files = ['settle.ts', 'webhook-adapter.ts', 'pull-adapter.ts', 'rails.ts'];
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files,
      }),
    );
    const typecheck = await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(
      () => 'no type error',
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(typecheck).toBe('no type error');
  });

  it("runs the guide's webhook adapter as written: tested, activated, paid and settled, then out of service", async () => {
    const provider = (await mmpJson(['provider', 'create', '--name', 'Standalone Webhook'])) as Provider;
    const key = ['--provider-key', provider.apiKey];
    const port = await freePort();
    const rail = await mmpJson(webhookRailArgs(`http://127.0.0.1:${port}/`, provider.apiKey));
    const env = {
      RAIL_SECRET: rail.secret as string,
      PROVIDER_ID: provider.id,
      SIGNING_SECRET: provider.signingSecret,
      SERVICE_URL: `${system.baseUrl}/v1`,
      PORT: String(port),
    };
    const adapter = await start('npx', ['tsx', 'webhook-adapter.ts'], env, 'adapter listening');
    expect(await mmpJson(['rails', 'test', rail.id, ...key])).toMatchObject({ status: 'TESTED' });
    expect(await mmpJson(['rails', 'activate', rail.id, ...key])).toMatchObject({ status: 'ACTIVE' });

    expect(await sandboxPayment()).toEqual({ status: 'COMPLETED', failureCode: null, railIds: [rail.id] });
    await eventually(async () => /settlement pexec_\S+: HTTP 200/.test(adapter.output()), 5_000);
    await stopAll();

    // The packed example answers the same rail's test from the project too.
    await start('node', ['node_modules/@mmp/provider-kit/examples/webhook-adapter.js'], env, 'listening on');
    const retested = await mmp(['rails', 'test', rail.id, ...key]);
    expect(retested.stdout).toContain(`Rail ${rail.id} passed its test`);
    expect(await mmpJson(['rails', 'disable', rail.id, ...key])).toMatchObject({ inService: false });
  });

  it("creates a pull rail with the guide's rails.ts and runs its pull adapter as written", async () => {
    const provider = (await mmpJson(['provider', 'create', '--name', 'Standalone Pull'])) as Provider;
    const env = {
      PROVIDER_API_KEY: provider.apiKey,
      PROVIDER_ID: provider.id,
      SIGNING_SECRET: provider.signingSecret,
      SERVICE_URL: `${system.baseUrl}/v1`,
    };
    const { stdout } = await run('npx', ['tsx', 'rails.ts'], {
      cwd: project,
      env: { ...process.env, ...env },
    });
    const railId = /^rail (rail_\S+) is ACTIVE$/m.exec(stdout)?.[1];
    expect(railId, stdout).toBeTruthy();
    const adapter = await start('npx', ['tsx', 'pull-adapter.ts'], env, 'pulling orders');

    expect(await sandboxPayment()).toEqual({ status: 'COMPLETED', failureCode: null, railIds: [railId] });
    expect(adapter.output()).toMatch(/order pexec_\S+: 5000 XAF ACCEPTED/);
    await eventually(async () => /settlement pexec_\S+: HTTP 200/.test(adapter.output()), 5_000);
    const handedBack = await mmp(['rails', 'disable', railId!, '--provider-key', provider.apiKey]);
    expect(handedBack.code).toBe(0);
  });
});
