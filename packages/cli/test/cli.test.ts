import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { createTestSystem } from '@mmp/platform/testing';
import { paymentsApi, type Actor } from '@mmp/protocol';
import { forwardedRoutes } from '@mmp/gateway';
import { runMmp, startGatewayOnStandIn } from './harness.js';

const ADMIN_TOKEN = 'adm_cli_test_token_0123456789abcdef';
const system = createTestSystem('cli');
const dataDir = mkdtempSync(join(tmpdir(), 'mmp-cli-data-'));
let gateway: Awaited<ReturnType<typeof startGatewayOnStandIn>> | undefined;
let url: string;
/** Who the gateway said last called the payments list: proves a printed key works. */
let lastActor: Actor | undefined;

/** Runs the CLI as a user would; the admin token comes from the data folder, as after `pnpm start`. */
const mmp = (args: string[], env: Record<string, string> = {}, via?: Parameters<typeof runMmp>[2]) =>
  runMmp(args, { ADMIN_TOKEN: '', MMP_URL: url, DATA_DIR: dataDir, ...env }, via);

beforeAll(async () => {
  writeFileSync(join(dataDir, 'admin-token'), `${ADMIN_TOKEN}\n`);
  const listPayments = forwardedRoutes.filter((r) => r.method === 'GET' && r.url === '/v1/payments');
  gateway = await startGatewayOnStandIn(system, ADMIN_TOKEN, listPayments, [
    operation(paymentsApi.list, async (_request, { actor }) => {
      lastActor = actor;
      return { status: 200, body: { data: [], has_more: false, meta: { limit: 20, total: 0, page: 1 } } };
    }),
  ]);
  url = gateway.url;
});

afterAll(async () => {
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
