import { describe, expect, it } from 'vitest';
import { useShop } from './support/shop.js';

/**
 * A body under the gateway's 1 MiB limit may still be over what NATS carries (its
 * max_payload, with the envelope around the body): whatever route forwards it, the answer
 * is 413 payload_too_large, which tells a client not to retry, and never a 5xx.
 */
const shop = useShop('Large Bodies Shop');

const bodyOf = (bytes: number) => JSON.stringify({ protocol_version: '1', padding: 'x'.repeat(bytes - 40) });

async function post(path: string, raw: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${shop.system.baseUrl}${path}`, {
    method: 'POST',
    body: raw,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('bodies the bus cannot carry', () => {
  it('reach the provider webhook up to 1000 KB, crossing the bus once as their exact text, and are judged there', async () => {
    for (const kb of [600, 900, 1000]) {
      for (const provider of ['prv_unknown', 'sandbox']) {
        const answer = await post(`/v1/provider/webhooks/${provider}`, bodyOf(kb * 1024), {
          'x-service-signature': 'ab'.repeat(32),
        });
        expect(answer.status, `${kb} KB to ${provider}: ${JSON.stringify(answer.body)}`).toBe(403);
        expect(answer.body).toMatchObject({ error: { code: 'signature_invalid' } });
      }
    }
  });

  it('are 413 on the provider webhook just under the body limit, whatever the provider', async () => {
    for (const provider of ['prv_unknown', 'sandbox']) {
      const answer = await post(`/v1/provider/webhooks/${provider}`, bodyOf(1024 * 1024 - 100), {
        'x-service-signature': 'ab'.repeat(32),
      });
      expect(answer.status, `${provider}: ${JSON.stringify(answer.body)}`).toBe(413);
      expect(answer.body).toMatchObject({ error: { code: 'payload_too_large' } });
    }
  });

  it('are refused on merchant routes just under the body limit, never with a 5xx', async () => {
    const authorization = `Bearer ${shop.project.testSecretKey}`;
    for (const path of [
      '/v1/payments',
      '/v1/checkout/sessions',
      '/v1/payment-links',
      '/v1/webhook-endpoints',
    ]) {
      const answer = await post(path, bodyOf(1024 * 1024 - 512), { authorization });
      // Merchant routes validate at the edge first (400); what passes is 413 at the bus.
      expect([400, 413], `${path}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
  });
});
