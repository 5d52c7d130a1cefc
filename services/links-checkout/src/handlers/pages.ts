import type { Operation } from '@mmp/platform';
import { formatPhone, MAX_AMOUNT, MIN_AMOUNT, type ServiceReply, ShortCode } from '@mmp/protocol';
import { effectiveStatus, whyUnusable } from '../domain/link-rules.js';
import { exampleNumber, operatorsFor } from '../domain/operators.js';
import { pagePhonePlan } from '../domain/phone-plan.js';
import { loadAssets } from '../pages/assets.js';
import { renderCheckoutPage, renderNotFoundPage } from '../pages/checkout-page.js';
import { HTML, PAGE_HEADERS } from '../pages/html.js';
import { chooseLang } from '../pages/i18n.js';
import { renderLinkPage } from '../pages/link-page.js';
import { headerOf, type Deps } from './deps.js';
import type { MerchantLogos } from './logos.js';
import { expireIfDue } from './session-store.js';

function page(status: number, body: string): ServiceReply {
  return { status, body, contentType: HTML, headers: PAGE_HEADERS };
}

/** A number of the currency's first operator, for hints and error messages. */
function phoneExample(currency: string): string {
  const first = operatorsFor(currency)[0];
  return first ? exampleNumber(currency, first) : '';
}

/** Server-rendered pages of the hosted checkout and of links, and their static assets. */
export function pageOperations(deps: Deps, logos: MerchantLogos): Record<string, Operation> {
  const assets = loadAssets();
  /** A logo that cannot be had (store or network trouble) leaves the name alone, never fails the page. */
  const logoOf = (projectId: string, url: string | null) =>
    logos.dataUrl(projectId, url).catch((error: unknown) => {
      deps.log.warn({ err: error, projectId }, 'merchant logo unavailable');
      return null;
    });
  return {
    'pages.checkout': async (request) => {
      const lang = chooseLang(request.query.lang, headerOf(request.headers, 'accept-language'));
      const id = request.params.sessionId ?? '';
      const found = /^cs_[A-Za-z0-9]{16,64}$/.test(id) ? await deps.db.sessions.findOne({ _id: id }) : null;
      if (!found) return page(404, renderNotFoundPage(lang, `/checkout/${encodeURIComponent(id)}`));
      const session = await expireIfDue(deps, found);
      const merchant = await deps.merchants.get(session.projectId);
      const logo = await logoOf(session.projectId, merchant.logo);
      const link = session.linkId
        ? await deps.db.links.findOne({ _id: session.linkId, deletedAt: null })
        : null;
      const html = renderCheckoutPage(
        {
          id: session._id,
          status: session.status,
          amount: session.amount,
          currency: session.currency,
          description: session.description,
          merchantName: merchant.name,
          merchantLogo: logo,
          livemode: session.livemode,
          expiresAt: session.expiresAt.toISOString(),
          successUrl: session.successUrl,
          cancelUrl: session.cancelUrl,
          paymentMethod: session.paymentMethod,
          phone: displayedPhone(session.phone ?? session.customer.phone),
          // Shown only on the failed and expired screens, which the script may reveal later.
          retryUrl: link ? `/pay/${link.shortCode}?lang=${lang}` : null,
          failureCode: session.failureCode,
          operators: operatorsFor(session.currency).map((network) => ({
            network,
            example: exampleNumber(session.currency, network),
          })),
          phonePlan: pagePhonePlan(session.currency),
        },
        lang,
      );
      return page(200, html);
    },

    'pages.link': async (request) => {
      const lang = chooseLang(request.query.lang, headerOf(request.headers, 'accept-language'));
      const code = request.params.shortCode ?? '';
      const link = ShortCode.safeParse(code).success
        ? await deps.db.links.findOne({ shortCode: code, deletedAt: null })
        : null;
      if (!link) return page(404, renderNotFoundPage(lang, `/pay/${encodeURIComponent(code)}`));
      const merchant = await deps.merchants.get(link.projectId);
      const logo = await logoOf(link.projectId, merchant.logo);
      const now = deps.now();
      const html = renderLinkPage(
        {
          shortCode: link.shortCode,
          name: link.name,
          description: link.description,
          amount: link.amount,
          currency: link.currency,
          minAmount: Math.max(MIN_AMOUNT, link.minAmount ?? MIN_AMOUNT),
          maxAmount: Math.min(MAX_AMOUNT, link.maxAmount ?? MAX_AMOUNT),
          status: effectiveStatus(link, now),
          exhausted: whyUnusable(link, now)?.code === 'link_exhausted',
          collectPhone: link.collectPhone,
          collectEmail: link.collectEmail,
          collectName: link.collectName,
          customFields: link.customFields,
          merchantName: merchant.name,
          merchantLogo: logo,
          livemode: link.livemode,
          phoneExample: phoneExample(link.currency),
        },
        lang,
      );
      return page(200, html);
    },

    'pages.asset': async (request) => {
      const asset = assets.get(request.params.file ?? '');
      if (!asset)
        return {
          status: 404,
          body: 'Not found',
          contentType: 'text/plain; charset=utf-8',
          headers: { 'x-content-type-options': 'nosniff' },
        };
      const headers = {
        'cache-control': 'public, max-age=300',
        etag: asset.etag,
        'x-content-type-options': 'nosniff',
      };
      return { status: 200, body: asset.body, contentType: asset.contentType, headers };
    },
  };
}

/** The payer's number as the waiting screen shows it, grouped like the country writes it. */
function displayedPhone(e164: string | null): string | null {
  return e164 && formatPhone(e164);
}
