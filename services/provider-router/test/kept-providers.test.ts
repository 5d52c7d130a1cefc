import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { providersAdminApi } from '@mmp/protocol';
import { providerRouter } from '../src/service.js';
import { ADMIN, settlementEvent, startRouter } from './harness.js';

/**
 * Each replica keeps a provider with its opened signing secret between settlements. Both
 * replicas here keep it far longer than the test, so only the notice of the replica that
 * made a change can make the other one drop it: a rolled secret and a new mapping must
 * apply from the next settlement, whichever replica takes it.
 */
const KEPT = { PROVIDER_CACHE_MS: '60000' };
const h = await startRouter(KEPT);
const other = await startService(
  providerRouter(),
  { ...h.system.env, ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true', ...KEPT },
  { store: h.running.context.store },
);
afterAll(() => other.stop());

let sequence = 0;
/** `times` unmatched settlements signed with `secret`: the replicas share them at random. */
async function statuses(providerId: string, secret: string, times = 12, body?: Record<string, unknown>) {
  const answers = [];
  for (let i = 0; i < times; i += 1) {
    sequence += 1;
    const event = body ?? settlementEvent(`pexec_kept${sequence}`, { transaction_ref: `kept-${sequence}` });
    const reply = await h.settle(providerId, secret, event).catch((error: { status: number }) => error);
    answers.push(reply.status);
  }
  return answers;
}
const all = (status: number, times = 12) => Array.from({ length: times }, () => status);

describe('a provider kept by the replicas for its settlements', () => {
  it('is refused with its old signing secret on every replica once one rolls it, and the new one works there', async () => {
    const provider = await h.createProvider('Kept Co');
    expect(await statuses(provider.id, provider.signingSecret)).toEqual(all(200));
    const rolled = await h.call(
      providersAdminApi.rollSigningSecret,
      { params: { providerId: provider.id } },
      ADMIN,
    );
    const secret = (rolled.body as { signingSecret: string }).signingSecret;
    await eventually(async () => (await statuses(provider.id, provider.signingSecret, 1))[0] === 403);
    expect(await statuses(provider.id, provider.signingSecret)).toEqual(all(403));
    expect(await statuses(provider.id, secret)).toEqual(all(200));
  });

  it('reads a proprietary payload through the mapping set a moment before, on every replica', async () => {
    const provider = await h.createProvider('Mapped Co');
    expect(await statuses(provider.id, provider.signingSecret)).toEqual(all(200));
    const mapping = {
      fields: {
        idempotency_key: 'ref',
        transaction_ref: 'txn',
        amount: 'value',
        currency: 'ccy',
        status: 'state',
        settled_at: 'at',
      },
      constants: { network: 'ORANGE_MONEY' },
      statusMap: { OK: 'COMPLETED' },
    };
    await h.call(providersAdminApi.setMapping, { params: { providerId: provider.id }, body: mapping }, ADMIN);
    const proprietary = (n: number) => ({
      ref: `mapped-${n}`,
      txn: `mapped-txn-${n}`,
      value: '5000',
      ccy: 'XAF',
      state: 'OK',
      at: new Date().toISOString(),
    });
    const answers = [];
    for (let n = 0; n < 12; n += 1)
      answers.push(...(await statuses(provider.id, provider.signingSecret, 1, proprietary(n))));
    expect(answers).toEqual(all(200));
  });
});
