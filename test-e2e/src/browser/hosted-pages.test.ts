import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ProjectKeys, RunningSystem } from '../support/system.js';
import { api } from '../support/http.js';
import {
  TEXT,
  hasChromium,
  headingVisible as shownHeading,
  startBrowserSystem,
  openPhone,
  payOnPage,
  seriousViolations,
  shot,
  startShop,
  describeInBrowser,
} from './browser.js';

let system: RunningSystem;
let project: ProjectKeys;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;

beforeAll(async () => {
  if (!hasChromium) return;
  ({ system, project, browser } = await startBrowserSystem('Boutique Akwa'));
  shop = await startShop();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await system?.stop();
});

async function createPayment(amount = 5000) {
  const merchant = api(system.baseUrl, project.testSecretKey);
  const created = await merchant<{ paymentUrl: string }>('POST', '/v1/payments', {
    amount,
    currency: 'XAF',
    description: 'Panier T-shirt',
    returnUrl: `${shop.url}/ok`,
    cancelUrl: `${shop.url}/ko`,
  });
  expect(created.status).toBe(201);
  return created.body.paymentUrl;
}

const headingVisible = (page: Page, name: string, timeout?: number) =>
  shownHeading(page, name, system.baseUrl, timeout);

for (const lang of ['fr', 'en'] as const) {
  describeInBrowser(`hosted pages in ${lang === 'fr' ? 'French' : 'English'}`, () => {
    it('completes a sandbox payment with the success number and returns to the shop', async () => {
      const watched = await openPhone(browser, lang, system.baseUrl, { allowed: [shop.url] });
      const { page } = watched;
      try {
        await page.goto(await createPayment());
        await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
        expect(await page.locator('.sandbox').isVisible()).toBe(true);
        await payOnPage(page, lang, '+237690000001');
        await headingVisible(page, TEXT[lang].success);
        await shot(page, `checkout-success-${lang}`);
        await page.waitForURL(`${shop.url}/ok`, { timeout: 10_000 });
        expect(watched.foreignRequests).toEqual([]);
        expect(watched.cspViolations).toEqual([]);
      } finally {
        await watched.context.close();
      }
    });

    it('shows the insufficient-balance failure with its reason', async () => {
      const watched = await openPhone(browser, lang, system.baseUrl);
      const { page } = watched;
      try {
        await page.goto(await createPayment());
        await payOnPage(page, lang, '+237690000002');
        await headingVisible(page, TEXT[lang].failed);
        expect(await page.locator('#failure-reason').textContent()).toContain(TEXT[lang].insufficient);
        await shot(page, `checkout-insufficient-balance-${lang}`);
        expect(watched.cspViolations).toEqual([]);
      } finally {
        await watched.context.close();
      }
    });

    it('cancels and lands on the cancelUrl', async () => {
      const watched = await openPhone(browser, lang, system.baseUrl, { allowed: [shop.url] });
      const { page } = watched;
      try {
        await page.goto(await createPayment());
        await page.getByRole('button', { name: TEXT[lang].cancel }).click();
        await headingVisible(page, TEXT[lang].cancelled, 5_000);
        await shot(page, `checkout-cancelled-${lang}`);
        await page.waitForURL(`${shop.url}/ko`, { timeout: 10_000 });
        expect(shop.visits).toContain('/ko');
      } finally {
        await watched.context.close();
      }
    });

    it('pays a variable-amount link', async () => {
      const merchant = api(system.baseUrl, project.testSecretKey);
      const link = await merchant<{ url: string }>('POST', '/v1/payment-links', {
        name: 'Don libre',
        minAmount: 500,
        maxAmount: 20000,
        collectName: true,
      });
      expect(link.status).toBe(201);
      const watched = await openPhone(browser, lang, system.baseUrl);
      const { page } = watched;
      try {
        await page.goto(link.body.url);
        await page.getByLabel(TEXT[lang].amount).fill('2500');
        await page.getByLabel(TEXT[lang].name).fill('Awa Ndiaye');
        await page.getByRole('button', { name: TEXT[lang].continue }).click();
        await page.waitForURL(/\/checkout\/cs_/);
        expect(await page.locator('h1.amount').textContent()).toMatch(/2[\s,.\u202f\u00a0]?500/u);
        await payOnPage(page, lang, '+237690000001');
        await headingVisible(page, TEXT[lang].success);
        await shot(page, `link-variable-success-${lang}`);
        expect(watched.cspViolations).toEqual([]);
      } finally {
        await watched.context.close();
      }
    });

    it("explains an expired link's state", async () => {
      const merchant = api(system.baseUrl, project.testSecretKey);
      const link = await merchant<{ url: string }>('POST', '/v1/payment-links', {
        name: 'Promo flash',
        amount: 1000,
        expiresAt: new Date(Date.now() + 1000).toISOString(),
      });
      expect(link.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const watched = await openPhone(browser, lang, system.baseUrl, { bypassCSP: true });
      try {
        await watched.page.goto(link.body.url);
        await expect.poll(() => watched.page.getByText(TEXT[lang].expired).isVisible()).toBe(true);
        expect(await watched.page.locator('form').count()).toBe(0);
        await shot(watched.page, `link-expired-${lang}`);
        expect(await seriousViolations(watched.page)).toEqual([]);
      } finally {
        await watched.context.close();
      }
    });

    it('switches language with the visible toggle', async () => {
      const watched = await openPhone(browser, lang, system.baseUrl);
      try {
        await watched.page.goto(await createPayment());
        await watched.page.getByRole('link', { name: TEXT[lang].toggle }).click();
        await expect
          .poll(() => watched.page.locator('html').getAttribute('lang'))
          .toBe(lang === 'fr' ? 'en' : 'fr');
      } finally {
        await watched.context.close();
      }
    });

    it('passes axe-core with no serious or critical violations', async () => {
      const merchant = api(system.baseUrl, project.testSecretKey);
      const link = await merchant<{ url: string }>('POST', '/v1/payment-links', {
        name: 'Cotisation',
        minAmount: 100,
        maxAmount: 5000,
        collectEmail: true,
        collectPhone: true,
      });
      for (const url of [await createPayment(), link.body.url]) {
        const watched = await openPhone(browser, lang, system.baseUrl, { bypassCSP: true });
        try {
          await watched.page.goto(url);
          expect(await seriousViolations(watched.page)).toEqual([]);
        } finally {
          await watched.context.close();
        }
      }
    });
  });
}
