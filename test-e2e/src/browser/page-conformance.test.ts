import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { MAX_LOGO_BYTES } from '@mmp/links-checkout';
import {
  PNG,
  TEXT,
  describeInBrowser,
  useBrowserSystem,
  useMerchantServer,
  payOnPage,
  seriousViolations,
  shot,
  startLogoHost,
  startShop,
} from './browser.js';

/**
 * The hosted page as issue 16 asks: never a dead end, every missing field said at once,
 * operators recognisable by a badge of their colour, a layout that holds at 320 px, a page
 * under 50 KB with the largest logo allowed, and the API reference working under the
 * gateway's Content-Security-Policy.
 */
const suite = useBrowserSystem('Boutique Bonamoussadi', {
  PAYMENT_TTL_SECONDS: '8',
  EXPIRY_INTERVAL_MS: '300',
});
/** A PNG of exactly the largest size a logo may have: its signature, then filler. */
const LARGEST_LOGO = Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES - PNG.length, 7)]);
const shop = useMerchantServer(startShop);
const logoHost = useMerchantServer(() => startLogoHost(LARGEST_LOGO));

const paymentUrl = (body: Record<string, unknown> = {}, key?: string) =>
  suite.paymentUrl({ amount: 5000, description: 'Panier', ...body }, key);

const shown = (page: Page, selector: string) =>
  page
    .locator(selector)
    .isVisible()
    .catch(() => false);

describeInBrowser('the hosted page is never a dead end', () => {
  it('reports every missing field of an empty form at once', async () => {
    await suite.onPhone('en', {}, async (watched) => {
      await watched.page.goto(await paymentUrl());
      await watched.page.getByRole('button', { name: TEXT.en.pay }).click();
      await expect.poll(() => shown(watched.page, '#operator-error')).toBe(true);
      expect(await watched.page.locator('#operator-error').textContent()).toBe('Choose an operator.');
      expect(await watched.page.locator('#phone-error').textContent()).toBe(
        'Enter your mobile money number.',
      );
      expect(await watched.page.locator('#form-error').textContent()).toBe(
        'Correct the fields above to continue.',
      );
      // Nothing was sent: the session is still waiting for the payer.
      expect(watched.page.url()).toContain('/checkout/');
    });
  });

  it('reports every missing field of an empty payment-link form at once', async () => {
    const link = await suite.linkUrl({
      name: 'Inscription',
      minAmount: 500,
      maxAmount: 20_000,
      collectName: true,
      collectEmail: true,
      collectPhone: true,
      customFields: [{ key: 'classe', label: 'Classe', type: 'text', required: true }],
    });
    await suite.onPhone('en', {}, async (watched) => {
      await watched.page.goto(link);
      await watched.page.getByRole('button', { name: TEXT.en.continue }).click();
      const errors = [
        '#amount-error',
        '#name-error',
        '#email-error',
        '#customer-phone-error',
        '#custom-0-error',
      ];
      for (const selector of errors) {
        await expect.poll(() => shown(watched.page, selector), { message: selector }).toBe(true);
        expect(await watched.page.locator(selector).textContent(), selector).toBe('This field is required.');
      }
      // Each field says it is wrong to assistive technology; the first one has the focus.
      expect(await watched.page.locator('[aria-invalid="true"]').count()).toBe(errors.length);
      expect(await watched.page.locator('#amount:focus').count()).toBe(1);
      // Nothing was sent: the payer is still on the link's page.
      expect(new URL(watched.page.url()).pathname).toBe(new URL(link).pathname);
      expect(watched.consoleErrors).toEqual([]);
    });
  });

  it('after a failure, leads back to the merchant (its return URL when it gave no cancel URL)', async () => {
    await suite.onPhone('fr', {}, async (watched) => {
      await watched.page.goto(await paymentUrl({ returnUrl: `${shop().url}/merci` }));
      await payOnPage(watched.page, 'fr', '690000004');
      await suite.headingVisible(watched.page, TEXT.fr.failed);
      expect(await watched.page.locator('#failure-reason').textContent()).toBe(
        'Le code PIN saisi est incorrect.',
      );
      const back = watched.page.getByRole('link', { name: 'Retour chez le marchand' });
      expect(await back.getAttribute('href')).toBe(`${shop().url}/merci`);
      await back.click();
      await expect.poll(() => shop().visits.includes('/merci')).toBe(true);
    });
  });

  it('after an expiry on a link, offers to start again with another number and another operator', async () => {
    const link = await suite.linkUrl({ name: 'Cotisation', amount: 2000 });
    await suite.onPhone('en', {}, async (watched) => {
      await watched.page.goto(link);
      await watched.page.getByRole('button', { name: TEXT.en.continue }).click();
      // Never confirmed: the payment expires while the payer waits.
      await payOnPage(watched.page, 'en', '+237690000003');
      await suite.headingVisible(watched.page, 'Payment expired', 30_000);
      await watched.page.getByRole('link', { name: TEXT.en.retry }).click();
      await watched.page.getByRole('button', { name: TEXT.en.continue }).click();
      await payOnPage(watched.page, 'en', '+237670000001', 'MTN Mobile Money');
      await suite.headingVisible(watched.page, TEXT.en.success);
    });
  }, 60_000);
});

/** The page's width against the viewport's: equal when nothing makes the payer scroll sideways. */
const widths = (page: Page) =>
  page.evaluate(() => {
    const dom = globalThis as unknown as {
      document: { documentElement: { scrollWidth: number } };
      innerWidth: number;
    };
    return { page: dom.document.documentElement.scrollWidth, viewport: dom.innerWidth };
  });

/** Every control the payer needs is shown, whole, inside the viewport's width. */
async function controlsInView(page: Page, selector: string) {
  const width = page.viewportSize()!.width;
  const controls = await page.locator(selector).all();
  expect(controls.length, selector).toBeGreaterThan(0);
  for (const control of controls) {
    expect(await control.isVisible(), selector).toBe(true);
    const box = (await control.boundingBox())!;
    expect(box.x, selector).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, selector).toBeLessThanOrEqual(width);
  }
}

/** Each operator badge: its text, its computed colours, and the text of its choice. */
const badgesOf = (page: Page) =>
  page.locator('.operator .badge').evaluateAll((nodes) => {
    type Node = { textContent: string | null; closest(selector: string): Node | null };
    const css = globalThis as unknown as {
      getComputedStyle(node: unknown): { backgroundColor: string; color: string };
    };
    return (nodes as unknown as Node[]).map((node) => ({
      text: node.textContent,
      background: css.getComputedStyle(node).backgroundColor,
      color: css.getComputedStyle(node).color,
      label: node.closest('label')?.textContent,
    }));
  });

describeInBrowser('operators and small screens', () => {
  it('holds at 320 px: no sideways scroll, every control in view, nothing axe finds serious', async () => {
    const long = await suite.system.createProject('Établissements Commerciaux Réunis de Douala-Bonabéri');
    const link = await suite.linkUrl(
      {
        name: 'Abonnement mensuel au service de livraison à domicile',
        minAmount: 100,
        maxAmount: 5_000_000,
        collectName: true,
        collectEmail: true,
        collectPhone: true,
      },
      long.testSecretKey,
    );
    const checkout = await paymentUrl(
      { amount: 4_999_999, description: 'Commande numéro 2026-11-0042 : trois articles, livraison express' },
      long.testSecretKey,
    );
    const pages = [
      { url: checkout, name: 'checkout', controls: '.operator, #phone, #pay-form button' },
      { url: link, name: 'link', controls: '#link-form input, #link-form button' },
    ];
    for (const { url, name, controls } of pages) {
      await suite.onPhone('fr', { width: 320, bypassCSP: true }, async (watched) => {
        await watched.page.goto(url);
        const measured = await widths(watched.page);
        expect(measured.page, name).toBeLessThanOrEqual(measured.viewport);
        await controlsInView(watched.page, controls);
        expect(await seriousViolations(watched.page)).toEqual([]);
        await shot(watched.page, `320px-${name}`);
      });
    }
  });

  it('draws Orange Money and MTN MoMo (XAF) as badges in their colours, named by the operator alone', async () => {
    await suite.onPhone('fr', { width: 320 }, async (watched) => {
      await watched.page.goto(await paymentUrl());
      expect(await badgesOf(watched.page)).toEqual([
        { text: 'OM', background: 'rgb(255, 121, 0)', color: 'rgb(0, 0, 0)', label: 'OMOrange Money' },
        { text: 'MTN', background: 'rgb(255, 204, 0)', color: 'rgb(0, 0, 0)', label: 'MTNMTN Mobile Money' },
      ]);
      // The badge is decoration: the choice is named by the operator's name alone.
      expect(await watched.page.getByRole('radio', { name: 'Orange Money', exact: true }).count()).toBe(1);
    });
  });

  it('draws Wave and Moov Money (XOF) too, readable (axe) at 320 px', async () => {
    await suite.onPhone('en', { width: 320, bypassCSP: true }, async (watched) => {
      await watched.page.goto(await paymentUrl({ currency: 'XOF', amount: 2500 }));
      const badges = await badgesOf(watched.page);
      expect(badges).toEqual(
        expect.arrayContaining([
          { text: 'W', background: 'rgb(29, 196, 255)', color: 'rgb(0, 0, 0)', label: 'WWave' },
          { text: 'M', background: 'rgb(0, 86, 163)', color: 'rgb(255, 255, 255)', label: 'MMoov Money' },
        ]),
      );
      expect(await watched.page.getByRole('radio', { name: 'Wave', exact: true }).count()).toBe(1);
      expect(await watched.page.getByRole('radio', { name: 'Moov Money', exact: true }).count()).toBe(1);
      const measured = await widths(watched.page);
      expect(measured.page).toBeLessThanOrEqual(measured.viewport);
      await controlsInView(watched.page, '.operator, #phone, #pay-form button');
      expect(await seriousViolations(watched.page)).toEqual([]);
      await shot(watched.page, '320px-checkout-xof');
    });
  });
});

describeInBrowser('size budget', () => {
  it('keeps each page under 50 KB with its script, styles and the largest logo allowed', async () => {
    const branded = await suite.system.createProject('Logo Lourd', { logoUrl: `${logoHost().url}/logo.png` });
    const link = await suite.linkUrl(
      { name: 'Budget', minAmount: 100, maxAmount: 5000, collectName: true },
      branded.testSecretKey,
    );
    for (const url of [await paymentUrl({}, branded.testSecretKey), link]) {
      const html = await (await fetch(url)).text();
      // The logo is inlined, at its full size.
      expect(html).toContain(`data:image/png;base64,${LARGEST_LOGO.toString('base64')}`);
      const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      const sizes = await Promise.all(
        assets.map(
          async (path) => (await (await fetch(`${suite.system.baseUrl}${path}`)).arrayBuffer()).byteLength,
        ),
      );
      const total = Buffer.byteLength(html) + sizes.reduce((a, b) => a + b, 0);
      expect(total, url).toBeLessThan(50 * 1024);
    }
  });
});

describeInBrowser('the API reference page', () => {
  it('works under the gateway’s Content-Security-Policy, without a console error', async () => {
    await suite.onPhone('en', {}, async (watched) => {
      await watched.page.goto(`${suite.system.baseUrl}/docs`);
      await watched.page.locator('.opblock-tag').first().waitFor({ state: 'visible', timeout: 20_000 });
      expect(await watched.page.locator('.opblock-tag', { hasText: 'Payments' }).count()).toBeGreaterThan(0);
      expect(watched.cspViolations).toEqual([]);
      expect(watched.consoleErrors).toEqual([]);
      expect(watched.foreignRequests).toEqual([]);
    });
  });
});
