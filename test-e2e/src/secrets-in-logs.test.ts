import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, eventually } from '@mmp/platform/testing';
import { SECRET_SHAPE } from './support/log-scan.global.js';
import { useShop } from './support/shop.js';
import { api, startWebhookReceiver } from './support/http.js';
import { payOnHostedPage } from './support/shopper.js';

/**
 * Every service at `trace`, every log line captured, while the run issues, rolls, revokes,
 * presents and signs with every kind of key and secret the system has. Not one of them,
 * nor anything shaped like one, may reach a log line.
 */
const logs = captureLogs();

const issued = new Set<string>();
const remember = <T>(value: T): T => {
  JSON.stringify(value, (_key, field: unknown) => {
    if (typeof field === 'string' && /^(svc_(test|live)_(sk|pk)_|whsec_|ssec_|sk_)/.test(field))
      issued.add(field);
    return field;
  });
  return value;
};

const shop = useShop('Quiet Shop', { env: { LOG_LEVEL: 'trace' }, logDestination: logs.stream });
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  remember(shop.project);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe('secrets in logs', () => {
  it('never writes a key or secret, through a run that uses every kind of them', async () => {
    const { system, project, merchant } = shop;

    // Merchant keys: issued, rolled, revoked, presented after revocation, unknown, malformed.
    const key = remember(
      await system.admin<{ id: string; key: string }>('POST', `/v1/admin/projects/${project.id}/keys`, {
        kind: 'secret',
        livemode: false,
      }),
    );
    const rolled = remember(
      await system.admin<{ id: string; key: string }>(
        'POST',
        `/v1/admin/projects/${project.id}/keys/${key.id}/roll`,
      ),
    );
    expect((await api(system.baseUrl, key.key)('GET', '/v1/payments')).status).toBe(401);
    await system.admin('POST', `/v1/admin/projects/${project.id}/keys/${rolled.id}/revoke`);
    expect((await api(system.baseUrl, rolled.key)('GET', '/v1/payments')).status).toBe(401);
    expect(
      (await api(system.baseUrl, `${project.testSecretKey.slice(0, -6)}XXXXXX`)('GET', '/v1/payments'))
        .status,
    ).toBe(401);
    expect(
      (await api(system.baseUrl, project.testPublishableKey)('POST', '/v1/payments', { amount: 1000 }))
        .status,
    ).toBe(403);
    const badScopes = await system
      .admin<unknown>('POST', `/v1/admin/projects/${project.id}/keys`, {
        kind: 'publishable',
        livemode: false,
        scopes: ['payments:write'],
      })
      .catch((error: unknown) => error);
    expect(String(badScopes)).toContain('400');

    // Merchant webhook secrets: created, rolled, then used to sign a real delivery.
    const endpoint = remember(
      (
        await merchant<{ id: string; secret: string }>('POST', '/v1/webhook-endpoints', {
          url: receiver.url,
          enabledEvents: ['*'],
        })
      ).body,
    );
    remember((await merchant('POST', `/v1/webhook-endpoints/${endpoint.id}/roll-secret`)).body);

    // Provider keys, settlement signing secrets and rail secrets.
    const provider = remember(
      await system.admin<{ id: string; apiKey: string; signingSecret: string }>(
        'POST',
        '/v1/admin/providers',
        { name: 'Quiet Rails' },
      ),
    );
    const rolledProvider = remember(
      await system.admin<{ apiKey: string }>('POST', `/v1/admin/providers/${provider.id}/keys/roll`),
    );
    remember(await system.admin('POST', `/v1/admin/providers/${provider.id}/roll-signing-secret`));
    expect((await api(system.baseUrl, provider.apiKey)('GET', '/v1/provider/rails')).status).toBe(401);
    const portal = api(system.baseUrl, rolledProvider.apiKey);
    const rail = remember(
      (
        await portal<{ id: string; secret: string }>('POST', '/v1/provider/rails', {
          transport: 'webhook',
          endpoint: 'https://rails.example.test/orders',
          networks: ['MTN_MOMO'],
          countries: ['CM'],
          currencies: ['XAF'],
          environment: 'sandbox',
        })
      ).body,
    );
    expect(rail.secret).toMatch(/^whsec_/);
    remember((await portal('POST', `/v1/provider/rails/${rail.id}/roll-secret`)).body);
    const forged = await fetch(`${system.baseUrl}/v1/provider/webhooks/${provider.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': provider.signingSecret },
      body: '{}',
    });
    expect(forged.status).toBe(403);

    // A sandbox payment end to end: the sandbox provider's own key, the settlement signature
    // and the merchant webhook signature are all in play.
    const payment = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', {
      amount: 2500,
      reference: 'quiet-1',
    });
    await payOnHostedPage(system.baseUrl, payment.body, '+237690000001');
    await eventually(
      async () =>
        receiver.received.find(
          (w) => w.rawBody.includes(payment.body.token) && w.rawBody.includes('completed'),
        ),
      20_000,
    );

    expect(issued.size).toBeGreaterThanOrEqual(12);
    // The capture really holds the run: request lines from the gateway and the services' work.
    const captured = logs.text();
    expect(captured).toContain('"service":"gateway"');
    expect(captured).toContain('payment routed');
    for (const secret of issued)
      expect(captured.includes(secret), `${secret.slice(0, 12)}… is in a log line`).toBe(false);
    const shaped = captured.match(new RegExp(SECRET_SHAPE, 'g')) ?? [];
    expect(shaped).toEqual([]);
    expect(captured).not.toContain(system.adminToken);
  }, 60_000);
});
