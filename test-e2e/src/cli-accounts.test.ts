import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignatureHeader } from '@mmp/protocol';
import { eventually } from '@mmp/platform/testing';
import { useShop } from './support/shop.js';
import { api, startWebhookReceiver } from './support/http.js';
import { PNG, startLogoHost } from './browser/browser.js';
import { mmpAgainst, projectArgs } from './support/mmp.js';

/**
 * `mmp project …` and `mmp keys …` against the whole system, judged by what an operator
 * notices: the keys and secrets they print work at once, restrictions and revocations hold,
 * --json parses, lists never show a full key, and bad input says what is wrong, exits
 * non-zero and prints no stack trace. Also `mmp provider roll-key`, the other key roll.
 */
const keysShop = useShop('Keys Shop');
const { mmp, mmpJson } = mmpAgainst(() => keysShop.system);
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let logoHost: Awaited<ReturnType<typeof startLogoHost>>;

/** A refusal as a user sees it: one `mmp:` line naming the problem, exit 1, no stack trace. */
function expectRefusal(result: { code: number; stdout: string; stderr: string }, ...says: RegExp[]) {
  expect(result.code, result.stdout).toBe(1);
  for (const pattern of says) expect(result.stderr).toMatch(pattern);
  expect(result.stderr + result.stdout).not.toMatch(/\n\s+at /);
}

const keysOfShop = (command: string, ...options: string[]) =>
  projectArgs('keys', keysShop.project.id, command, ...options);

const FULL_KEY = /svc_(test|live)_(sk|pk)_[A-Za-z0-9]{32}/;
const call = (key: string, method = 'GET', path = '/v1/payments', body?: unknown) =>
  api(keysShop.system.baseUrl, key)<{ code?: string; error?: { code?: string }; livemode?: boolean }>(
    method,
    path,
    body,
  );

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  logoHost = await startLogoHost();
});

afterAll(async () => {
  await logoHost?.close();
  await receiver?.close();
});

describe('mmp project', () => {
  it('create --logo --webhook-url prints keys and a webhook secret that signs a real delivery', async () => {
    const created = await mmp([
      'project',
      'create',
      '--name',
      'Hooked',
      '--display-name',
      'Hooked Shop',
      '--logo',
      `${logoHost.url}/logo.png`,
      '--webhook-url',
      receiver.url,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.match(/^Project (\S+) \(Hooked Shop\)/)?.[1];
    const secretKey = created.stdout.match(/test secret\s+(svc_test_sk_\S+)/)?.[1];
    const webhookSecret = created.stdout.match(
      new RegExp(`Webhook ${receiver.url} secret: (whsec_\\S+)`),
    )?.[1];
    expect({ id, secretKey, webhookSecret }).toEqual({
      id: expect.any(String),
      secretKey: expect.any(String),
      webhookSecret: expect.any(String),
    });

    // A cancelled payment is the quickest real event: no provider involved.
    const payment = await call(secretKey!, 'POST', '/v1/payments', { amount: 2500 });
    expect(payment.status).toBe(201);
    const { token, paymentUrl } = payment.body as unknown as { token: string; paymentUrl: string };
    const page = await fetch(paymentUrl);
    expect(await page.text()).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
    expect((await call(secretKey!, 'POST', `/v1/payments/${token}/cancel`)).status).toBe(200);

    await eventually(async () => receiver.received.length > 0, 10_000);
    const delivery = receiver.received[0]!;
    expect(JSON.parse(delivery.rawBody)).toMatchObject({ type: 'transaction.cancelled', data: { token } });
    expect(
      verifySignatureHeader({
        header: String(delivery.headers['x-service-signature']),
        rawBody: delivery.rawBody,
        secrets: [webhookSecret!],
        nowSeconds: Math.floor(Date.now() / 1000),
      }),
    ).toEqual({ ok: true });

    const shown = await mmpJson(['project', 'show', id!]);
    expect(shown).toMatchObject({ id, displayName: 'Hooked Shop', logoUrl: `${logoHost.url}/logo.png` });
  });

  it('list --json parses and holds every project; show prints the keys as hints only', async () => {
    const projects = await mmpJson(['project', 'list']);
    expect(projects).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: keysShop.project.id, name: 'Keys Shop' })]),
    );

    const human = await mmp(['project', 'show', keysShop.project.id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^Project ${keysShop.project.id} \\(Keys Shop\\)`));
    expect(human.stdout).toMatch(/ test secret svc_test_sk_…[A-Za-z0-9]{4}\n/);
    expect(human.stdout).toMatch(/ live publishable svc_live_pk_…[A-Za-z0-9]{4}\n/);
    const shown = await mmp(['project', 'show', keysShop.project.id, '--json']);
    const parsed = JSON.parse(shown.stdout) as { keys: { key?: string; hint: string }[] };
    expect(parsed.keys).toHaveLength(4);
    for (const key of parsed.keys) expect(key.key).toBeUndefined();
    expect(human.stdout + shown.stdout).not.toMatch(FULL_KEY);
  });

  it('refuses an unknown project and a missing name by name', async () => {
    expectRefusal(await mmp(['project', 'show', 'no-such-project']), /resource_not_found: No project/);
    const unknown = await mmp(['project', 'show', 'no-such-project', '--json']);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: 'resource_not_found', status: 404 } });
    expectRefusal(await mmp(['project', 'show']), /missing required argument 'projectId'/);
    expectRefusal(await mmp(['project', 'create']), /required option '--name <name>' not specified/);
    expectRefusal(
      await mmp(['project', 'create', '--name', 'Bad', '--webhook-url', 'not a url']),
      /validation_error/,
      /webhookUrl/,
    );
  });

  it('suspend: every key of the project answers 403 service_suspended until resume; other projects keep working', async () => {
    const shop = await keysShop.system.createProject('Suspended Shop');
    const other = await keysShop.system.createProject('Neighbour Shop');
    const keys = [shop.testSecretKey, shop.liveSecretKey];
    const suspended = await mmp(['project', 'suspend', shop.id]);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toMatch(/is suspended since .*403 service_suspended/);
    for (const key of keys) {
      const refused = await call(key, 'POST', '/v1/payments', { amount: 1000 });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ statusCode: 403, code: 'service_suspended' });
    }
    // The envelope form says it too, on the project's other routes.
    const hooks = await call(shop.testSecretKey, 'GET', '/v1/webhook-endpoints');
    expect(hooks.status).toBe(403);
    expect(hooks.body.error?.code).toBe('service_suspended');
    expect((await call(other.testSecretKey)).status).toBe(200);
    // Suspending again keeps the first date; list shows it.
    const again = await mmpJson(['project', 'suspend', shop.id]);
    expect(again.suspendedAt).toBe((await mmpJson(['project', 'show', shop.id])).suspendedAt);
    const listed = (await mmpJson(['project', 'list'])) as { id: string; suspendedAt: string | null }[];
    expect(listed.find((p) => p.id === shop.id)?.suspendedAt).toBe(again.suspendedAt);

    expect(await mmpJson(['project', 'resume', shop.id])).toMatchObject({ id: shop.id, suspendedAt: null });
    for (const key of keys) expect((await call(key)).status).toBe(200);
    expectRefusal(await mmp(['project', 'suspend', 'no-such-project']), /resource_not_found/);
  });
});

describe('mmp keys', () => {
  it('create prints a key that works at once; revoke refuses it with 401 invalid_api_key', async () => {
    const created = await mmp(keysOfShop('create'));
    expect(created.code, created.stderr).toBe(0);
    const [, keyId, key] =
      created.stdout.match(/^Key (\S+) \(test secret\), shown this once:\n {2}(\S+)/) ?? [];
    expect(key).toMatch(/^svc_test_sk_/);
    expect((await call(key!)).status).toBe(200);

    const listed = await mmpJson(keysOfShop('list'));
    expect(listed).toHaveLength(5);
    const summary = listed.find((k: { id: string }) => k.id === keyId);
    expect(summary).toMatchObject({ hint: `svc_test_sk_…${key!.slice(-4)}`, revokedAt: null });
    expect(JSON.stringify(listed)).not.toMatch(FULL_KEY);

    const revoked = await mmp(keysOfShop('revoke', '--key', keyId!));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Key ${keyId} (svc_test_sk_…${key!.slice(-4)}) revoked.`);
    const refused = await call(key!);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_api_key');

    const table = await mmp(keysOfShop('list'));
    expect(table.stdout).toMatch(new RegExp(`${keyId}\\s+test\\s+secret\\s+svc_test_sk_…\\S+\\s+revoked`));
    expect(table.stdout).not.toMatch(FULL_KEY);
  });

  it('--scopes restricts a key: 403 insufficient_permissions outside its scopes', async () => {
    const key = await mmpJson(keysOfShop('create', '--scopes', 'payments:read'));
    expect(key).toMatchObject({ kind: 'secret', livemode: false, scopes: ['payments:read'] });
    expect((await call(key.key)).status).toBe(200);
    const write = await call(key.key, 'POST', '/v1/payments', { amount: 1000 });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('insufficient_permissions');
    const hooks = await call(key.key, 'GET', '/v1/webhook-endpoints');
    expect(hooks.status).toBe(403);
    expect(hooks.body.error?.code).toBe('insufficient_permissions');
  });

  it('--live issues a live key that acts on production data', async () => {
    const key = await mmpJson(keysOfShop('create', '--live'));
    expect(key.key).toMatch(/^svc_live_sk_/);
    const payment = await call(key.key, 'POST', '/v1/payments', { amount: 1000 });
    expect(payment.status).toBe(201);
    expect(payment.body.livemode).toBe(true);
  });

  it('--expires-at: the key works until then, then answers 401 expired_api_key and lists as expired', async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const key = await mmpJson(keysOfShop('create', '--expires-at', expiresAt));
    expect(key.expiresAt).toBe(expiresAt);
    expect((await call(key.key)).status).toBe(200);
    await eventually(async () => (await call(key.key)).status === 401, 10_000, 250);
    expect((await call(key.key)).body.code).toBe('expired_api_key');
    const table = await mmp(keysOfShop('list'));
    expect(table.stdout).toMatch(new RegExp(`${key.id}\\s+test\\s+secret\\s+\\S+\\s+expired`));
  });

  it('roll --expires-at gives the new key that expiry', async () => {
    const old = await mmpJson(keysOfShop('create'));
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const rolled = await mmpJson(keysOfShop('roll', '--key', old.id, '--expires-at', expiresAt));
    expect(rolled).toMatchObject({ expiresAt, key: expect.stringMatching(/^svc_test_sk_/) });
    expect((await call(rolled.key)).status).toBe(200);
    expect((await call(old.key)).status).toBe(401);
  });

  it('refuses a publishable key with a secret scope, and an unknown scope, saying which', async () => {
    const publishable = await mmp(
      keysOfShop('create', '--kind', 'publishable', '--scopes', 'checkout_sessions:read,payments:write'),
    );
    expectRefusal(
      publishable,
      /validation_error: A publishable key cannot hold: payments:write\./,
      /- scopes: payments:write is not allowed on a publishable key; it may hold only checkout_sessions:read/,
    );
    expectRefusal(
      await mmp(keysOfShop('create', '--scopes', 'payments:read,payments:admin')),
      /validation_error: A secret key cannot hold: payments:admin\./,
      /- scopes: payments:admin is not a scope; scopes are payments:read, payments:write, /,
    );
    const safe = await mmpJson(keysOfShop('create', '--kind', 'publishable'));
    expect(safe).toMatchObject({ kind: 'publishable', scopes: ['checkout_sessions:read'] });
    expect(safe.key).toMatch(/^svc_test_pk_/);
  });

  it('refuses unknown projects and keys, bad values and missing options by name', async () => {
    expectRefusal(await mmp(['keys', 'create', '--project', 'no-such-project']), /resource_not_found/);
    expectRefusal(await mmp(['keys', 'list', '--project', 'no-such-project']), /resource_not_found/);
    const unknownKey = await mmp(keysOfShop('revoke', '--key', 'key_nope', '--json'));
    expectRefusal(unknownKey, /resource_not_found: No key key_nope/);
    expect(JSON.parse(unknownKey.stdout)).toMatchObject({ error: { code: 'resource_not_found' } });
    expectRefusal(await mmp(keysOfShop('create', '--kind', 'restricted')), /validation_error/, /kind/);
    expectRefusal(
      await mmp(keysOfShop('create', '--expires-at', 'tomorrow')),
      /validation_error/,
      /expiresAt/,
    );
    expectRefusal(await mmp(['keys', 'create']), /required option '--project <id>' not specified/);
    // A script reading --json output learns of a usage error on stdout too, not only on stderr.
    const usage = await mmp(['keys', 'create', '--json']);
    expectRefusal(usage, /required option '--project <id>' not specified/);
    expect(JSON.parse(usage.stdout)).toEqual({
      error: { message: "required option '--project <id>' not specified" },
    });
    expectRefusal(await mmp(keysOfShop('revoke')), /required option '--key <id>' not specified/);
  });
});

describe('mmp provider roll-key', () => {
  it('prints a new provider key that works at once; the old one gets 401 invalid_api_key', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'Rolling Keys']);
    const rails = (key: string) =>
      api(keysShop.system.baseUrl, key)<{ code?: string }>('GET', '/v1/provider/rails');
    expect((await rails(provider.apiKey)).status).toBe(200);

    const rolled = await mmp(['provider', 'roll-key', '--provider', provider.id]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const fresh = rolled.stdout.match(/^New API key \(shown this once\): (sk_\S+)$/m)?.[1];
    expect(fresh).toBeDefined();
    expect((await rails(fresh!)).status).toBe(200);
    const refused = await rails(provider.apiKey);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('invalid_api_key');

    expectRefusal(
      await mmp(['provider', 'roll-key', '--provider', 'prv_unknown']),
      /resource_not_found: No provider prv_unknown/,
    );
  });
});
