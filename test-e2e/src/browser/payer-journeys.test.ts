import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  PNG,
  TEXT,
  useBrowserSystem,
  useMerchantServer,
  payOnPage,
  seriousViolations,
  shot,
  startLogoHost,
  describeInBrowser,
} from './browser.js';

const suite = useBrowserSystem('Boutique Akwa');
const logoHost = useMerchantServer(startLogoHost);

const createPayment = (secretKey?: string) =>
  suite.paymentUrl({ amount: 5000, currency: 'XAF', description: 'Panier T-shirt' }, secretKey);

/** The focused element as `tag:id` (or `tag:value` for a radio without id). */
function focused(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const element = document.activeElement;
    return element ? element.tagName.toLowerCase() + ':' + (element.id || element.value || '') : '';
  })()`);
}

/** `m:ss` of the waiting screen's countdown, in seconds. */
async function secondsLeft(page: Page): Promise<number> {
  const text = (await page.locator('#countdown').textContent()) ?? '';
  const match = /^(\d+):(\d\d)$/.exec(text);
  if (!match) throw new Error(`countdown shows "${text}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

for (const lang of ['fr', 'en'] as const) {
  describeInBrowser(`payer journeys in ${lang === 'fr' ? 'French' : 'English'}`, () => {
    it('counts down on the waiting screen while the payer has not confirmed', async () => {
      await suite.onPhone(lang, { bypassCSP: true }, async (watched) => {
        const { page } = watched;
        await page.goto(await createPayment());
        // The sandbox never settles this number: the payer "never confirms".
        await payOnPage(page, lang, '+237690000003');
        // The number as the country writes it, so the payer can check it at a glance.
        expect(await page.locator('#waiting-text').textContent()).toContain('+237 6 90 00 00 03');
        const first = await secondsLeft(page);
        expect(first).toBeGreaterThan(60);
        await expect.poll(() => secondsLeft(page), { timeout: 5_000 }).toBeLessThanOrEqual(first - 2);
        await shot(page, `checkout-waiting-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
        await page.getByRole('button', { name: TEXT[lang].cancel }).click();
        await suite.headingVisible(page, TEXT[lang].cancelled, 5_000);
      });
    });

    it('offers "Try again" after a failed payment on a link, and the second try succeeds', async () => {
      const link = await suite.linkUrl({ name: 'Abonnement', amount: 3000 });
      await suite.onPhone(lang, { bypassCSP: true }, async (watched) => {
        const { page } = watched;
        await page.goto(link);
        await page.getByRole('button', { name: TEXT[lang].continue }).click();
        await page.waitForURL(/\/checkout\/cs_/);
        const firstSession = page.url();
        // A national number: the page reads it in the link's country, as the API does.
        await payOnPage(page, lang, '690 00 00 02');
        await suite.headingVisible(page, TEXT[lang].failed);
        expect(await page.locator('#failure-reason').textContent()).toContain(TEXT[lang].insufficient);
        await shot(page, `link-failed-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);

        await page.getByRole('link', { name: TEXT[lang].retry }).click();
        await page.waitForURL(/\/pay\/[A-Za-z0-9]{8}/);
        await page.getByRole('button', { name: TEXT[lang].continue }).click();
        await page.waitForURL(/\/checkout\/cs_/);
        expect(page.url()).not.toBe(firstSession);
        await payOnPage(page, lang, '690000001');
        await suite.headingVisible(page, TEXT[lang].success);
        await shot(page, `link-retry-success-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
      });
    });

    it('says when a number does not belong to the chosen operator, before asking the API', async () => {
      await suite.onPhone(lang, {}, async (watched) => {
        const { page } = watched;
        const pays: string[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith('/pay')) pays.push(request.url());
        });
        await page.goto(await createPayment());
        await page.getByLabel('MTN Mobile Money').check();
        await page.getByLabel(TEXT[lang].phone).fill('690000001');
        await page.getByRole('button', { name: TEXT[lang].pay }).click();
        const error = page.locator('#phone-error');
        await expect.poll(() => error.textContent()).toContain(TEXT[lang].notMtn);
        expect(await error.isVisible()).toBe(true);
        expect(await page.getByLabel(TEXT[lang].phone).getAttribute('aria-invalid')).toBe('true');
        expect(await focused(page)).toBe('input:phone');
        expect(await page.locator('#phone-hint').textContent()).toContain('+237 6 70 00 00 01');
        expect(pays).toEqual([]);
        await shot(page, `checkout-wrong-operator-${lang}`);

        await page.getByLabel('Orange Money').check();
        await page.getByRole('button', { name: TEXT[lang].pay }).click();
        await suite.headingVisible(page, TEXT[lang].success);
        expect(pays).toHaveLength(1);
        expect(watched.cspViolations).toEqual([]);
      });
    });

    it('can be completed with the keyboard alone', async () => {
      await suite.onPhone(lang, {}, async (watched) => {
        const { page } = watched;
        await page.goto(await createPayment());
        await page.keyboard.press('Tab');
        // In test mode the sandbox banner's list of test numbers comes first, as it is shown.
        expect(await focused(page)).toMatch(/^summary:/);
        await page.keyboard.press('Tab');
        expect(await focused(page)).toMatch(/^a:/); // then the language toggle
        await page.keyboard.press('Tab');
        expect(await focused(page)).toBe('input:ORANGE_MONEY');
        await page.keyboard.press('Space');
        expect(await page.getByLabel('Orange Money').isChecked()).toBe(true);
        await page.keyboard.press('Tab');
        expect(await focused(page)).toBe('input:phone');
        await page.keyboard.type('+237 690 00 00 01');
        await page.keyboard.press('Enter');
        await suite.headingVisible(page, TEXT[lang].success);
        // The outcome's heading takes the focus, so a screen reader reads it at once.
        expect(await focused(page)).toBe('h2:');
        await shot(page, `checkout-keyboard-success-${lang}`);
      });
    });
  });
}

describeInBrowser("the merchant's logo", () => {
  it('is shown from our own origin: the browser never asks the merchant’s image host', async () => {
    const secret = (await suite.system.createProject('Logo Shop', { logoUrl: `${logoHost().url}/logo.png` }))
      .testSecretKey;
    const link = await suite.linkUrl(
      {
        name: 'Panier',
        amount: 1000,
      },
      secret,
    );
    for (const url of [await createPayment(secret), link]) {
      await suite.onPhone('fr', {}, async (watched) => {
        const { page } = watched;
        await page.goto(url);
        const logo = page.locator('img.logo');
        expect(await logo.isVisible()).toBe(true);
        expect(await logo.getAttribute('src')).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
        const size = (img: unknown) => (img as { complete: boolean; naturalWidth: number }).naturalWidth;
        expect(await logo.evaluate(size)).toBe(1);
        expect(watched.foreignRequests).toEqual([]);
        expect(watched.cspViolations).toEqual([]);
      });
    }
    // Only the service asked, once for both pages (it keeps the logo).
    expect(logoHost().askedBy).toEqual([expect.stringMatching(/^mmp-links-checkout\//)]);
  });
});
