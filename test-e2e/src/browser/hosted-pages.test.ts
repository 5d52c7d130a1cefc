import { expect, it } from 'vitest';
import {
  TEXT,
  useBrowserSystem,
  useMerchantServer,
  payOnPage,
  seriousViolations,
  shot,
  startShop,
  describeInBrowser,
} from './browser.js';

const suite = useBrowserSystem('Boutique Akwa');
const shop = useMerchantServer(startShop);

const createPayment = (amount = 5000) =>
  suite.paymentUrl({
    amount,
    currency: 'XAF',
    description: 'Panier T-shirt',
    returnUrl: `${shop().url}/ok`,
    cancelUrl: `${shop().url}/ko`,
  });

for (const lang of ['fr', 'en'] as const) {
  describeInBrowser(`hosted pages in ${lang === 'fr' ? 'French' : 'English'}`, () => {
    it('completes a sandbox payment with the success number and returns to the shop', async () => {
      await suite.onPhone(lang, { allowed: [shop().url] }, async (watched) => {
        const { page } = watched;
        await page.goto(await createPayment());
        await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
        expect(await page.locator('.sandbox').isVisible()).toBe(true);
        await payOnPage(page, lang, '+237690000001');
        await suite.headingVisible(page, TEXT[lang].success);
        await shot(page, `checkout-success-${lang}`);
        await page.waitForURL(`${shop().url}/ok`, { timeout: 10_000 });
        expect(watched.foreignRequests).toEqual([]);
        expect(watched.cspViolations).toEqual([]);
      });
    });

    it('shows the insufficient-balance failure with its reason', async () => {
      await suite.onPhone(lang, {}, async (watched) => {
        const { page } = watched;
        await page.goto(await createPayment());
        await payOnPage(page, lang, '+237690000002');
        await suite.headingVisible(page, TEXT[lang].failed);
        expect(await page.locator('#failure-reason').textContent()).toContain(TEXT[lang].insufficient);
        await shot(page, `checkout-insufficient-balance-${lang}`);
        expect(watched.cspViolations).toEqual([]);
      });
    });

    it('cancels and lands on the cancelUrl', async () => {
      await suite.onPhone(lang, { allowed: [shop().url] }, async (watched) => {
        const { page } = watched;
        await page.goto(await createPayment());
        await page.getByRole('button', { name: TEXT[lang].cancel }).click();
        await suite.headingVisible(page, TEXT[lang].cancelled, 5_000);
        await shot(page, `checkout-cancelled-${lang}`);
        await page.waitForURL(`${shop().url}/ko`, { timeout: 10_000 });
        expect(shop().visits).toContain('/ko');
      });
    });

    it('pays a variable-amount link', async () => {
      const link = await suite.linkUrl({
        name: 'Don libre',
        minAmount: 500,
        maxAmount: 20000,
        collectName: true,
      });
      await suite.onPhone(lang, {}, async (watched) => {
        const { page } = watched;
        await page.goto(link);
        await page.getByLabel(TEXT[lang].amount).fill('2500');
        await page.getByLabel(TEXT[lang].name).fill('Awa Ndiaye');
        await page.getByRole('button', { name: TEXT[lang].continue }).click();
        await page.waitForURL(/\/checkout\/cs_/);
        expect(await page.locator('h1.amount').textContent()).toMatch(/2[\s,.\u202f\u00a0]?500/u);
        await payOnPage(page, lang, '+237690000001');
        await suite.headingVisible(page, TEXT[lang].success);
        await shot(page, `link-variable-success-${lang}`);
        expect(watched.cspViolations).toEqual([]);
      });
    });

    it("explains an expired link's state", async () => {
      const link = await suite.linkUrl({
        name: 'Promo flash',
        amount: 1000,
        expiresAt: new Date(Date.now() + 1000).toISOString(),
      });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await suite.onPhone(lang, { bypassCSP: true }, async (watched) => {
        await watched.page.goto(link);
        await expect.poll(() => watched.page.getByText(TEXT[lang].expired).isVisible()).toBe(true);
        expect(await watched.page.locator('form').count()).toBe(0);
        await shot(watched.page, `link-expired-${lang}`);
        expect(await seriousViolations(watched.page)).toEqual([]);
      });
    });

    it('switches language with the visible toggle', async () => {
      await suite.onPhone(lang, {}, async (watched) => {
        await watched.page.goto(await createPayment());
        await watched.page.getByRole('link', { name: TEXT[lang].toggle }).click();
        await expect
          .poll(() => watched.page.locator('html').getAttribute('lang'))
          .toBe(lang === 'fr' ? 'en' : 'fr');
      });
    });

    it('passes axe-core with no serious or critical violations', async () => {
      const link = await suite.linkUrl({
        name: 'Cotisation',
        minAmount: 100,
        maxAmount: 5000,
        collectEmail: true,
        collectPhone: true,
      });
      for (const url of [await createPayment(), link]) {
        await suite.onPhone(lang, { bypassCSP: true }, async (watched) => {
          await watched.page.goto(url);
          expect(await seriousViolations(watched.page)).toEqual([]);
        });
      }
    });
  });
}
