import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectNats,
  createLogger,
  operation,
  serveOperations,
  startService,
  type RunningService,
} from '@mmp/platform';
import { createTestSystem } from '@mmp/platform/testing';
import { paymentsApi, type Actor } from '@mmp/protocol';
import { createGatewayService, forwardedRoutes } from '@mmp/gateway';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const ADMIN_TOKEN = 'adm_cli_test_token_0123456789abcdef';
const system = createTestSystem('cli');
const dataDir = mkdtempSync(join(tmpdir(), 'mmp-cli-data-'));
let gateway: RunningService;
let url: string;
let stopResponder: () => Promise<unknown>;
/** Who the gateway said last called the payments list: proves a printed key works. */
let lastActor: Actor | undefined;

/** Runs the CLI as a user would; the admin token comes from the data folder, as after `pnpm start`. */
async function mmp(
  args: string[],
  env: Record<string, string> = {},
  via: 'node' | 'script' | 'bin' = 'node',
) {
  // `pnpm -s mmp` (the root script) and `pnpm exec mmp` (the installed bin) run this node
  // command; going through each once proves them, the rest save pnpm's start-up.
  const [command, prefix] = {
    node: [process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/cli/src/main.ts']],
    script: ['pnpm', ['--silent', 'mmp']],
    bin: ['pnpm', ['exec', 'mmp']],
  }[via] as [string, string[]];
  try {
    const { stdout, stderr } = await run(command, [...prefix, ...args], {
      cwd: root,
      env: { ...process.env, ADMIN_TOKEN: '', MMP_URL: url, DATA_DIR: dataDir, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  writeFileSync(join(dataDir, 'admin-token'), `${ADMIN_TOKEN}\n`);
  // The real gateway (admin routes, keys, guard) with one merchant route, listening on a free port.
  const listPayments = forwardedRoutes.filter((r) => r.method === 'GET' && r.url === '/v1/payments');
  gateway = await startService(
    createGatewayService({
      routes: listPayments,
      expose: async (app) => {
        await app.listen({ host: '127.0.0.1', port: 0 });
        url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      },
    }),
    { ...system.env, ADMIN_TOKEN, LOG_LEVEL: 'silent' },
  );
  const log = createLogger({ service: 'fake-payments', level: 'silent' });
  const nc = await connectNats({ url: system.env.NATS_URL!, name: 'fake-payments', log });
  const responder = await serveOperations({
    nc,
    naming: system.naming,
    service: 'payments',
    version: '0.0.1',
    log,
    operations: [
      operation(paymentsApi.list, async (_request, { actor }) => {
        lastActor = actor;
        return { status: 200, body: { data: [], has_more: false, meta: { limit: 20, total: 0, page: 1 } } };
      }),
    ],
  });
  stopResponder = async () => {
    await responder.stop();
    await nc.drain();
  };
});

afterAll(async () => {
  await stopResponder?.();
  await gateway?.stop();
  await system.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('pnpm mmp', () => {
  it('project create --json prints four keys that work against the API at once', async () => {
    const result = await mmp(['project', 'create', '--name', 'Shop', '--json'], {}, 'script');
    expect(result.code, result.stderr).toBe(0);
    const project = JSON.parse(result.stdout) as {
      id: string;
      keys: { kind: string; livemode: boolean; key: string }[];
    };
    expect(project.keys.map((k) => `${k.livemode}:${k.kind}`).sort()).toEqual([
      'false:publishable',
      'false:secret',
      'true:publishable',
      'true:secret',
    ]);
    const secret = project.keys.find((k) => !k.livemode && k.kind === 'secret')!;
    expect(secret.key).toMatch(/^svc_test_sk_[A-Za-z0-9]{32,}$/);
    const response = await fetch(`${url}/v1/payments`, {
      headers: { authorization: `Bearer ${secret.key}` },
    });
    expect(response.status).toBe(200);
    expect(lastActor).toMatchObject({ kind: 'merchant', projectId: project.id, livemode: false });

    const listed = await mmp(['keys', 'list', '--project', project.id, '--json']);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout) as { hint: string; key?: string }[];
    expect(keys).toHaveLength(4);
    for (const key of keys) {
      expect(key.key).toBeUndefined();
      expect(key.hint).toMatch(/^svc_(test|live)_(sk|pk)_…[A-Za-z0-9]{4}$/);
    }
  });

  it('runs as the installed bin, its --json output pure JSON', async () => {
    const result = await mmp(['project', 'list', '--json'], {}, 'bin');
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { name: string }[]).map((p) => p.name)).toContain('Shop');
  });

  it('prints the keys in the human form', async () => {
    const created = await mmp(['project', 'create', '--name', 'Bakery', '--display-name', 'La Boulangerie']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/test secret\s+svc_test_sk_/);
    expect(created.stdout).toMatch(/live publishable\s+svc_live_pk_/);
  });

  it('rolls a key: the printed new key works, the old one is refused', async () => {
    const project = JSON.parse((await mmp(['project', 'create', '--name', 'Roll', '--json'])).stdout) as {
      id: string;
      keys: { id: string; kind: string; livemode: boolean; key: string }[];
    };
    const old = project.keys.find((k) => !k.livemode && k.kind === 'secret')!;
    const rolled = await mmp(['keys', 'roll', '--project', project.id, '--key', old.id, '--json']);
    expect(rolled.code, rolled.stderr).toBe(0);
    const fresh = JSON.parse(rolled.stdout) as { key: string };
    const call = (key: string) =>
      fetch(`${url}/v1/payments`, { headers: { authorization: `Bearer ${key}` } });
    expect((await call(old.key)).status).toBe(401);
    expect((await call(fresh.key)).status).toBe(200);
  });

  it("fails with the server's code and a non-zero exit", async () => {
    const result = await mmp(['keys', 'list', '--project', 'no-such-project', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('resource_not_found');
    expect(JSON.parse(result.stdout).error.code).toBe('resource_not_found');
  });

  it('says where the admin token is expected when there is none', async () => {
    const result = await mmp(['project', 'list'], { DATA_DIR: join(dataDir, 'empty') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ADMIN_TOKEN');
  });

  it('refuses a wrong admin token with invalid_api_key', async () => {
    const result = await mmp(['project', 'list'], { ADMIN_TOKEN: 'adm_wrong_0123456789abcdef' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid_api_key');
  });
});
