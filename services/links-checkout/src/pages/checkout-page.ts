import { MESSAGES, NETWORK_LABELS, fill, formatAmount, type Lang, type Messages } from './i18n.js';
import { escapeHtml, layout, merchantBlock } from './html.js';
import type { PagePhonePlan } from '../domain/phone-plan.js';

export type OperatorChoice = { network: string; example: string };

export type CheckoutView = {
  id: string;
  status: string;
  amount: number;
  currency: string;
  description: string | null;
  merchantName: string;
  /** A `data:` URL of the logo the service fetched, or null. */
  merchantLogo: string | null;
  livemode: boolean;
  expiresAt: string;
  successUrl: string | null;
  cancelUrl: string | null;
  paymentMethod: string | null;
  phone: string | null;
  /** Where a payer starts again after a failure, when they can. */
  retryUrl: string | null;
  failureCode: string | null;
  operators: OperatorChoice[];
  phonePlan: PagePhonePlan;
};

/** Strings the script needs once the page is running, in the page's language only. */
function clientMessages(t: Messages) {
  const keys = Object.keys(t).filter(
    (key) =>
      key.startsWith('status_') ||
      key.startsWith('failure_') ||
      key.startsWith('error') ||
      key === 'waitingText' ||
      key === 'phoneHint' ||
      key === 'redirecting',
  ) as (keyof Messages)[];
  return Object.fromEntries(keys.map((key) => [key, t[key]]));
}

export function failureText(t: Messages, code: string | null): string {
  const key = `failure_${code ?? 'default'}` as keyof Messages;
  return t[key] ?? t.failure_default;
}

function section(name: string, visible: boolean, inner: string): string {
  return `<section id="screen-${name}" class="screen"${visible ? '' : ' hidden'}>${inner}</section>`;
}

/**
 * Each operator recognisable at a glance: its initials on its colour, drawn by our own CSS
 * (no logo artwork), beside its name, which is what assistive technology reads.
 */
const BADGES: Record<string, string> = { ORANGE_MONEY: 'OM', MTN_MOMO: 'MTN', WAVE: 'W', MOOV_MONEY: 'M' };

function operatorBadge(network: string): string {
  const initials = BADGES[network];
  return initials ? `<span class="badge badge-${network}" aria-hidden="true">${initials}</span>` : '';
}

function operatorInputs(view: CheckoutView, lang: Lang): string {
  return (
    view.operators
      .map(
        (op, index) =>
          `<label class="operator"><input type="radio" name="paymentMethod" value="${op.network}" data-example="${escapeHtml(op.example)}"${
            view.paymentMethod === op.network || (index === 0 && view.operators.length === 1)
              ? ' checked'
              : ''
          } required>${operatorBadge(op.network)}<span>${escapeHtml(NETWORK_LABELS[op.network] ?? op.network)}</span></label>`,
      )
      .join('') || `<p>${lang === 'fr' ? 'Aucun opérateur disponible.' : 'No operator available.'}</p>`
  );
}

export function renderCheckoutPage(view: CheckoutView, lang: Lang): string {
  const t = MESSAGES[lang];
  const amount = formatAmount(view.amount, view.currency, lang);
  const example = view.operators[0]?.example ?? '';
  const state = view.status;
  const back = (url: string | null) =>
    url
      ? `<a class="button secondary" href="${escapeHtml(url)}" data-back>${escapeHtml(t.backToMerchant)}</a>`
      : '';
  // After a failure, an expiry or a cancel the payer always has a way on: a new try on a
  // link, and the way back to the merchant (its cancel URL, else its return URL). A merchant
  // that gave neither URL leaves nowhere to link to, so the page says the payer may close it.
  const onward =
    (view.retryUrl
      ? `<a class="button primary" href="${escapeHtml(view.retryUrl)}">${escapeHtml(t.retry)}</a>`
      : '') +
    (back(view.cancelUrl ?? view.successUrl) ||
      (view.retryUrl ? '' : `<p class="hint">${escapeHtml(t.closePage)}</p>`));
  const content = `
${merchantBlock(view.merchantName, view.merchantLogo)}
<h1 class="amount">${escapeHtml(amount)}</h1>
${view.description ? `<p class="description">${escapeHtml(view.description)}</p>` : ''}
<noscript><p class="error">${escapeHtml(t.noscript)}</p></noscript>
${section(
  'form',
  state === 'idle',
  `<form id="pay-form" novalidate>
<fieldset><legend>${escapeHtml(t.operator)}</legend>${operatorInputs(view, lang)}</fieldset>
<p id="operator-error" class="error" hidden></p>
<label for="phone">${escapeHtml(t.phone)}</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" required aria-describedby="phone-hint phone-error" value="${escapeHtml(view.phone ?? '')}">
<p id="phone-hint" class="hint">${escapeHtml(fill(t.phoneHint, { example }))}</p>
<p id="phone-error" class="error" hidden></p>
<p id="form-error" class="error" role="alert" hidden></p>
<button type="submit" class="button primary">${escapeHtml(fill(t.pay, { amount }))}</button>
<button type="button" class="button secondary" data-cancel>${escapeHtml(t.cancel)}</button>
</form>`,
)}
${section(
  'waiting',
  state === 'processing' || state === 'pending_ussd',
  `<h2 tabindex="-1">${escapeHtml(t.waitingTitle)}</h2>
<p id="waiting-text">${escapeHtml(fill(t.waitingText, { phone: view.phone ?? '' }))}</p>
<p class="countdown">${escapeHtml(t.timeLeft)} <strong id="countdown">--:--</strong></p>
<p class="spinner" aria-hidden="true"></p>
<button type="button" class="button secondary" data-cancel>${escapeHtml(t.cancel)}</button>`,
)}
${section(
  'success',
  state === 'success',
  `<h2 tabindex="-1" class="ok">${escapeHtml(t.successTitle)}</h2>
<p>${escapeHtml(fill(t.successText, { amount, merchant: view.merchantName }))}</p>
<p id="redirect-note" hidden>${escapeHtml(t.redirecting)}</p>${back(view.successUrl)}`,
)}
${section(
  'failed',
  state === 'failed',
  `<h2 tabindex="-1" class="ko">${escapeHtml(t.failedTitle)}</h2>
<p id="failure-reason">${escapeHtml(failureText(t, view.failureCode))}</p>
${onward}`,
)}
${section(
  'expired',
  state === 'expired',
  `<h2 tabindex="-1" class="ko">${escapeHtml(t.expiredTitle)}</h2><p>${escapeHtml(t.expiredText)}</p>${onward}`,
)}
${section(
  'cancelled',
  state === 'cancelled',
  `<h2 tabindex="-1">${escapeHtml(t.cancelledTitle)}</h2><p>${escapeHtml(t.cancelledText)}</p>${onward}`,
)}
<p id="live" class="status" role="status" aria-live="polite">${escapeHtml(t[`status_${state}` as keyof Messages] ?? '')}</p>`;
  return layout({
    lang,
    title: `${t.payTo} ${view.merchantName}: ${amount}`,
    script: 'checkout.js',
    livemode: view.livemode,
    currency: view.currency,
    path: `/checkout/${view.id}`,
    content,
    data: {
      sessionId: view.id,
      lang,
      status: view.status,
      expiresAt: view.expiresAt,
      successUrl: view.successUrl,
      cancelUrl: view.cancelUrl,
      phonePlan: view.phonePlan,
      t: clientMessages(t),
    },
  });
}

export function renderNotFoundPage(lang: Lang, path: string): string {
  const t = MESSAGES[lang];
  return layout({
    lang,
    title: t.notFoundTitle,
    livemode: true,
    currency: null,
    path,
    content: `<h1>${escapeHtml(t.notFoundTitle)}</h1><p>${escapeHtml(t.notFoundText)}</p>`,
  });
}
