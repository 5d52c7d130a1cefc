import type { OperationHandler } from '@mmp/platform';
import {
  MAX_AMOUNT,
  MIN_AMOUNT,
  formatPhone,
  isAppError,
  type ServiceReply,
  type pagesApi,
} from '@mmp/protocol';
import { effectiveStatus, whyUnusable } from '../domain/link-rules.js';
import { exampleNumber, operatorsFor } from '../domain/operators.js';
import { pagePhonePlan } from '../domain/phone-plan.js';
import { loadAssets } from '../pages/assets.js';
import { renderCheckoutPage, renderNotFoundPage } from '../pages/checkout-page.js';
import { HTML, PAGE_HEADERS } from '../pages/html.js';
import { chooseLang } from '../pages/i18n.js';
import { renderLinkPage } from '../pages/link-page.js';
import { findLiveLink } from '../store/links.js';
import type { Deps } from '../deps.js';
import type { MerchantLogos } from '../use-cases/logos.js';
import { currentSession } from '../use-cases/sessions.js';
import { linkOfCode } from './public-links.js';
import { merchantOf } from './views.js';

type Api = typeof pagesApi;

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

function page(status: number, body: string): ServiceReply {
  return { status, body, contentType: HTML, headers: PAGE_HEADERS };
}

/** A number of the currency's first operator, for hints and error messages. */
function phoneExample(currency: string): string {
  const first = operatorsFor(currency)[0];
  return first ? exampleNumber(currency, first) : '';
}

/** Server-rendered pages of the hosted checkout and of links, and their static assets. */
export function pageHandlers(deps: Deps, logos: MerchantLogos) {
  const assets = loadAssets();
  /** A logo that cannot be had (store or network trouble) leaves the name alone, never fails the page. */
  const logoOf = (projectId: string, url: string | null) =>
    logos.dataUrl(projectId, url).catch((error: unknown) => {
      deps.log.warn({ err: error, projectId }, 'merchant logo unavailable');
      return null;
    });
  const checkout: OperationHandler<Api['checkout']> = async (request) => {
    const lang = chooseLang(request.query.lang, headerOf(request.headers, 'accept-language'));
    const id = request.params.sessionId ?? '';
    const session = await currentSession(deps, id).catch((error: unknown) => {
      if (isAppError(error) && error.code === 'resource_not_found') return null;
      throw error;
    });
    if (!session) return page(404, renderNotFoundPage(lang, `/checkout/${encodeURIComponent(id)}`));
    const merchant = merchantOf(await deps.projects.get(session.projectId));
    const logo = await logoOf(session.projectId, merchant.logo);
    const link = session.linkId ? await findLiveLink(deps.db, session.linkId) : null;
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
  };

  const linkPage: OperationHandler<Api['link']> = async (request) => {
    const lang = chooseLang(request.query.lang, headerOf(request.headers, 'accept-language'));
    const code = request.params.shortCode ?? '';
    const link = await linkOfCode(deps, code);
    if (!link) return page(404, renderNotFoundPage(lang, `/pay/${encodeURIComponent(code)}`));
    const merchant = merchantOf(await deps.projects.get(link.projectId));
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
  };

  const asset: OperationHandler<Api['asset']> = async (request) => {
    const file = assets.get(request.params.file ?? '');
    if (!file)
      return {
        status: 404,
        body: 'Not found',
        contentType: 'text/plain; charset=utf-8',
        headers: { 'x-content-type-options': 'nosniff' },
      };
    const headers = {
      'cache-control': 'public, max-age=300',
      etag: file.etag,
      'x-content-type-options': 'nosniff',
    };
    return { status: 200, body: file.body, contentType: file.contentType, headers };
  };

  return { checkout, link: linkPage, asset };
}

/** The payer's number as the waiting screen shows it, grouped like the country writes it. */
function displayedPhone(e164: string | null): string | null {
  return e164 && formatPhone(e164);
}
