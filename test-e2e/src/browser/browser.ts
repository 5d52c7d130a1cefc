import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, listenLocally } from '../support/http.js';
import { useShop } from '../support/shop.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/**
 * `describe` for a suite that drives Chromium. Without it a developer's run skips the suite
 * with a warning, but CI fails: .ci/run installs Chromium, so a green CI must never mean
 * the payer's pages went untested.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (hasChromium) {
    describe(name, body);
    return;
  }
  const missing = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI) {
    describe(name, () =>
      it('has Chromium to drive', () => {
        throw new Error(missing);
      }),
    );
    return;
  }
  console.warn(`browser suite "${name}" skipped: ${missing}`);
  describe.skip(name, body);
}
/**
 * The system a browser suite drives (see `useShop`), with Chromium, started only when there
 * is a Chromium to drive. Many payers share one IP here, each page polling every 2 s, and the
 * sandbox provider pulls its orders every 200 ms with its key: both rate limits are lifted so
 * they are not what is tested.
 */
export function useBrowserSystem(projectName: string, env: Record<string, string> = {}) {
  const shop = useShop(projectName, {
    env: { RATE_LIMIT_IP_MAX: '100000', RATE_LIMIT_KEY_MAX: '100000', ...env },
    skip: !hasChromium,
  });
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (hasChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return Object.assign(shop, {
    /** A phone on the system (see `openPhone`), closed once `use` is done with it, passed or failed. */
    async onPhone<T>(lang: Lang, options: PhoneOptions, use: (watched: Watched) => Promise<T>): Promise<T> {
      const watched = await openPhone(browser!, lang, shop.system.baseUrl, options);
      try {
        return await use(watched);
      } finally {
        await watched.context.close();
      }
    },
    /** Waits for a screen's heading (see `headingVisible`). */
    headingVisible: (page: Page, name: string, timeout?: number) =>
      headingVisible(page, name, shop.system.baseUrl, timeout),
    /** The hosted page of a new payment of the project (or of the project whose key is `key`). */
    async paymentUrl(body: Record<string, unknown>, key = shop.project.testSecretKey): Promise<string> {
      const created = await api(shop.system.baseUrl, key)<{ paymentUrl: string }>(
        'POST',
        '/v1/payments',
        body,
      );
      expect(created.status).toBe(201);
      return created.body.paymentUrl;
    },
    /** The page of a new payment link of the project (or of the project whose key is `key`). */
    async linkUrl(body: Record<string, unknown>, key = shop.project.testSecretKey): Promise<string> {
      const link = await api(shop.system.baseUrl, key)<{ url: string }>('POST', '/v1/payment-links', body);
      expect(link.status).toBe(201);
      return link.body.url;
    },
  });
}

/** A server of the merchant's that a browser suite needs, started only when there is a Chromium to drive. */
export function useMerchantServer<S extends { close(): Promise<void> }>(start: () => Promise<S>): () => S {
  let server: S | undefined;
  beforeAll(async () => {
    if (hasChromium) server = await start();
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server)
      throw new Error('the server starts before the tests; call useMerchantServer at the top of the file');
    return server;
  };
}

export const SCREENSHOTS = fileURLToPath(new URL('../../screenshots/', import.meta.url));
export const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Debian's Chromium, headless, with nothing phoning home; Playwright gives each launch a fresh profile. */
async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export type Lang = 'fr' | 'en';

/** What the payer reads, in each language. */
export const TEXT = {
  fr: {
    success: 'Paiement reçu',
    failed: 'Paiement échoué',
    insufficient: 'solde mobile money est insuffisant',
    waiting: 'Confirmez sur votre téléphone',
    pay: /^Payer/,
    cancel: 'Annuler le paiement',
    cancelled: 'Paiement annulé',
    continue: 'Continuer vers le paiement',
    amount: /Montant/,
    name: 'Nom complet',
    expired: 'Ce lien de paiement a expiré.',
    phone: 'Numéro mobile money',
    toggle: 'English',
    retry: 'Réessayer',
    notMtn: "Ce numéro n'appartient pas à MTN Mobile Money.",
  },
  en: {
    success: 'Payment received',
    failed: 'Payment failed',
    insufficient: 'mobile money balance is too low',
    waiting: 'Confirm on your phone',
    pay: /^Pay/,
    cancel: 'Cancel payment',
    cancelled: 'Payment cancelled',
    continue: 'Continue to payment',
    amount: /Amount/,
    name: 'Full name',
    expired: 'This payment link has expired.',
    phone: 'Mobile money number',
    toggle: 'Français',
    retry: 'Try again',
    notMtn: 'This number does not belong to MTN Mobile Money.',
  },
} as const;

/** A full-page screenshot kept by the run (test-e2e/screenshots/). */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Chooses the operator, types the number, pays, and waits for the waiting screen. */
export async function payOnPage(page: Page, lang: Lang, phone: string, operator = 'Orange Money') {
  await page.getByLabel(operator).check();
  await page.getByLabel(TEXT[lang].phone).fill(phone);
  await page.getByRole('button', { name: TEXT[lang].pay }).click();
  await expect
    .poll(() =>
      page
        .getByRole('heading', { name: TEXT[lang].waiting })
        .isVisible()
        .catch(() => false),
    )
    .toBe(true);
}

/** Waits for a screen's heading; on timeout, says where the session stood (for a readable failure). */
async function headingVisible(page: Page, name: string, baseUrl: string, timeout = 20_000) {
  try {
    await page.getByRole('heading', { name }).waitFor({ state: 'visible', timeout });
  } catch (error) {
    const id = new URL(page.url()).pathname.split('/').pop();
    const status = await fetch(`${baseUrl}/v1/checkout/sessions/${id}/status`).then((r) => r.text());
    throw new Error(`"${name}" not shown; session ${id}: ${status}`, { cause: error });
  }
}

export type Watched = {
  context: BrowserContext;
  page: Page;
  foreignRequests: string[];
  cspViolations: string[];
  /** Console errors and uncaught exceptions of the page. */
  consoleErrors: string[];
};

export type PhoneOptions = { bypassCSP?: boolean; allowed?: string[]; width?: number };

/**
 * A phone-sized browser speaking `lang`, recording every request that leaves the
 * system's origin and every CSP violation the console reports.
 */
async function openPhone(
  browser: Browser,
  lang: Lang,
  origin: string,
  options: PhoneOptions = {},
): Promise<Watched> {
  const context = await browser.newContext({
    locale: lang === 'fr' ? 'fr-FR' : 'en-US',
    extraHTTPHeaders: { 'accept-language': lang === 'fr' ? 'fr-FR,fr;q=0.9' : 'en-US,en;q=0.9' },
    viewport: { width: options.width ?? 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    bypassCSP: options.bypassCSP ?? false,
  });
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  const cspViolations: string[] = [];
  const allowed = [origin, ...(options.allowed ?? [])];
  page.on('request', (request) => {
    const url = request.url();
    if (!allowed.some((prefix) => url.startsWith(prefix)) && !url.startsWith('data:'))
      foreignRequests.push(url);
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  return { context, page, foreignRequests, cspViolations, consoleErrors };
}

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: unknown[] };

/** axe-core inside the page (the context must bypass CSP to inject it); serious and critical only. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The merchant's image host, serving its logo (by default a 1×1 PNG); records who asked (user agents). */
export async function startLogoHost(
  logo: Buffer = PNG,
): Promise<{ url: string; askedBy: string[]; close(): Promise<void> }> {
  const askedBy: string[] = [];
  const server = createServer((request, response) => {
    askedBy.push(request.headers['user-agent'] ?? '');
    response.writeHead(200, { 'content-type': 'image/png' });
    response.end(logo);
  });
  return { ...(await listenLocally(server)), askedBy };
}

/** The merchant's shop: where the page sends the payer back. Records the paths it served. */
export async function startShop(): Promise<{ url: string; visits: string[]; close(): Promise<void> }> {
  const visits: string[] = [];
  const server = createServer((request, response) => {
    visits.push(request.url ?? '/');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><title>Shop</title><h1>Back at the shop</h1></html>');
  });
  return { ...(await listenLocally(server)), visits };
}
