import { describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS, formatPhone } from '@mmp/protocol';
import { merchant, useHarness } from './harness.js';

const h = useHarness();

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

async function page(
  operation: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
  query: Record<string, string> = {},
) {
  const reply = await h.call(operation, { params, headers, query });
  return { ...reply, html: reply.body as string };
}

async function session(body: Record<string, unknown> = {}, live = false) {
  return h.ok<{ id: string }>(
    'sessions.create',
    { body: { amount: 5000, description: 'Panier <b>2</b>', ...body } },
    merchant(undefined, live),
    201,
  );
}

describe('hosted payment page', () => {
  it('is a real page with a strict Content-Security-Policy', async () => {
    const { id } = await session();
    const reply = await page('pages.checkout', { sessionId: id });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe('text/html; charset=utf-8');
    expect(reply.headers?.['content-security-policy']).toBe(CSP);
    expect(reply.headers?.['x-frame-options']).toBe('DENY');
    expect(reply.html).toContain('<!doctype html>');
    expect(reply.html).not.toMatch(/<script>(?!<)/);
    expect(reply.html).not.toMatch(/ style=|https?:\/\//);
  });

  it('speaks the browser language, French by default, switchable with ?lang', async () => {
    const { id } = await session();
    const en = await page('pages.checkout', { sessionId: id }, { 'accept-language': 'en-GB,en;q=0.9' });
    expect(en.html).toContain('<html lang="en">');
    expect(en.html).toContain('Choose your mobile money operator');
    expect(en.html).toContain('5,000 FCFA');
    expect(en.html).toContain(`href="/checkout/${id}?lang=fr"`);
    const fr = await page('pages.checkout', { sessionId: id }, { 'accept-language': 'de-DE' });
    expect(fr.html).toContain('<html lang="fr">');
    expect(fr.html).toContain('Choisissez votre opérateur');
    const forced = await page(
      'pages.checkout',
      { sessionId: id },
      { 'accept-language': 'en' },
      { lang: 'fr' },
    );
    expect(forced.html).toContain('<html lang="fr">');
  });

  it('shows merchant, amount, escaped description, operators and the sandbox banner in test mode only', async () => {
    const test = await page('pages.checkout', { sessionId: (await session()).id });
    expect(test.html).toContain('Boutique Ndolo');
    expect(test.html).not.toContain('<img'); // its logo URL does not resolve: the name alone
    expect(test.html).toContain('Panier &lt;b&gt;2&lt;/b&gt;');
    expect(test.html).toContain('value="ORANGE_MONEY"');
    expect(test.html).toContain('value="MTN_MOMO"');
    expect(test.html).not.toContain('value="WAVE"');
    expect(test.html).toContain('class="sandbox"');
    // Every sandbox number of the page's currency, with what it does (French by default);
    // none the page would refuse.
    for (const { phone } of SANDBOX_NUMBERS)
      if (phone.startsWith('+237')) expect(test.html).toContain(formatPhone(phone));
      else expect(test.html).not.toContain(formatPhone(phone));
    for (const words of ['solde insuffisant', 'code PIN erroné', 'plafond dépassé', 'compte inactif'])
      expect(test.html).toContain(words);
    const xof = await page('pages.checkout', { sessionId: (await session({ currency: 'XOF' })).id });
    expect(xof.html).toContain(formatPhone('+2250700000002'));
    expect(xof.html).toContain(formatPhone('+221770000001'));
    expect(xof.html).not.toContain(formatPhone('+237690000002'));
    const live = await page('pages.checkout', { sessionId: (await session({}, true)).id });
    expect(live.html).not.toContain('class="sandbox"');
  });

  it("gives its script the operators' prefix plans to check a number as the API will", async () => {
    const reply = await page('pages.checkout', { sessionId: (await session()).id });
    const data = JSON.parse(
      /<script type="application\/json" id="page-data">(.*?)<\/script>/s.exec(reply.html)![1]!,
    );
    expect(data.phonePlan.home).toBe('CM');
    expect(data.phonePlan.countries[0]).toMatchObject({
      country: 'CM',
      code: '237',
      length: 9,
      groups: [1, 2, 2, 2, 2],
    });
    expect(data.phonePlan.countries[0].prefixes).toContainEqual(['67', 'MTN_MOMO']);
    expect(data.t.errorOperator).toContain('{operator}');
  });

  it('answers a 404 page for unknown sessions', async () => {
    const reply = await page('pages.checkout', { sessionId: 'cs_unknown000000000000000' });
    expect(reply.status).toBe(404);
    expect(reply.html).toContain('introuvable');
    expect((await page('pages.checkout', { sessionId: '<script>' })).status).toBe(404);
  });

  it('stays under 50 KB with its script and styles', async () => {
    const reply = await page('pages.checkout', { sessionId: (await session()).id });
    const assets = await Promise.all(
      ['checkout.js', 'pages.css'].map((file) => page('pages.asset', { file })),
    );
    const total =
      Buffer.byteLength(reply.html) + assets.reduce((sum, a) => sum + Buffer.byteLength(a.html), 0);
    expect(total).toBeLessThan(50 * 1024);
  });
});

describe('payment-link page', () => {
  it('asks for the amount of a variable link and the fields the link collects', async () => {
    const link = await h.ok<{ shortCode: string }>(
      'links.create',
      {
        body: {
          name: 'Don',
          minAmount: 500,
          maxAmount: 10000,
          collectEmail: true,
          customFields: [{ key: 'ville', label: 'Ville', type: 'text', required: true }],
        },
      },
      merchant(),
      201,
    );
    const reply = await page('pages.link', { shortCode: link.shortCode }, { 'accept-language': 'en' });
    expect(reply.status).toBe(200);
    expect(reply.headers?.['content-security-policy']).toBe(CSP);
    expect(reply.html).toContain('name="amount"');
    expect(reply.html).toContain('min="500" max="10000"');
    expect(reply.html).toContain('name="email"');
    expect(reply.html).toContain('name="custom.ville"');
    expect(reply.html).toContain('<label for="custom-0">Ville</label>');
    const js = await page('pages.asset', { file: 'link.js' });
    expect(Buffer.byteLength(reply.html) + Buffer.byteLength(js.html)).toBeLessThan(40 * 1024);
  });

  it("shows a phone example of the link's own country", async () => {
    const link = await h.ok<{ shortCode: string }>(
      'links.create',
      { body: { name: 'Abidjan', amount: 2000, currency: 'XOF', collectPhone: true } },
      merchant(),
      201,
    );
    const reply = await page('pages.link', { shortCode: link.shortCode }, { 'accept-language': 'en' });
    expect(reply.html).toContain('For example: +225 07 00 00 0000');
    expect(reply.html).not.toContain('For example: +237');
  });

  it('explains an expired or inactive link instead of a form', async () => {
    const link = await h.ok<{ id: string; shortCode: string }>(
      'links.create',
      { body: { name: 'Old', amount: 1000 } },
      merchant(),
      201,
    );
    await h.ok('links.update', { params: { id: link.id }, body: { status: 'INACTIVE' } }, merchant());
    const reply = await page('pages.link', { shortCode: link.shortCode }, { 'accept-language': 'fr' });
    expect(reply.status).toBe(200);
    expect(reply.html).toContain('désactivé');
    expect(reply.html).not.toContain('link-form');
    expect((await page('pages.link', { shortCode: 'unknown1' })).status).toBe(404);
  });
});

describe('assets', () => {
  it('serves only its own files with their types', async () => {
    expect((await page('pages.asset', { file: 'checkout.js' })).contentType).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await page('pages.asset', { file: 'pages.css' })).contentType).toBe('text/css; charset=utf-8');
    expect((await page('pages.asset', { file: '../service.ts' })).status).toBe(404);
    expect((await page('pages.asset', { file: 'secret.js' })).status).toBe(404);
  });
});
