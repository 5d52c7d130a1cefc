import { SANDBOX_NUMBERS, formatPhone, sandboxNumbersFor } from '@mmp/protocol';
import { MESSAGES, type Lang, type Messages } from './i18n.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** JSON for a `<script type="application/json">` block: no sequence can close the tag. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * Only our own origin serves scripts, styles and API calls; the one image, the merchant's
 * logo, is inlined as a `data:` URL the service fetched itself, so the payer's browser never
 * asks a third party for anything. Nothing may frame the page (clickjacking on a payment form).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export const HTML = 'text/html; charset=utf-8';

export function layout(options: {
  lang: Lang;
  title: string;
  script?: string;
  livemode: boolean;
  /** The currency the page takes, whose sandbox numbers the banner lists; null for all. */
  currency: string | null;
  /** Path of this page, for the language toggle. */
  path: string;
  content: string;
  data?: unknown;
}): string {
  const t = MESSAGES[options.lang];
  const other = t.switchLang;
  const banner = options.livemode ? '' : sandboxBanner(t, options.currency);
  const script = options.script ? `<script src="/assets/${options.script}" defer></script>` : '';
  const data =
    options.data === undefined
      ? ''
      : `<script type="application/json" id="page-data">${jsonForHtml(options.data)}</script>`;
  return `<!doctype html>
<html lang="${options.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="/assets/pages.css">
${script}
</head>
<body>
${banner}
<header class="top"><a class="lang" href="${escapeHtml(options.path)}?lang=${other}" hreflang="${other}" lang="${other}">${escapeHtml(t.switchTo)}</a></header>
<main id="main" class="card">
${options.content}
</main>
${data}
</body>
</html>
`;
}

/**
 * Test mode, and every sandbox number the page accepts with what it does, folded away on
 * small screens.
 */
function sandboxBanner(t: Messages, currency: string | null): string {
  const numbers = (currency ? sandboxNumbersFor(currency) : SANDBOX_NUMBERS)
    .map(
      ({ phone, outcome }) =>
        `<li><span class="num">${escapeHtml(formatPhone(phone))}</span> ${escapeHtml(t[`sandbox_${outcome}`])}</li>`,
    )
    .join('');
  return `<div class="sandbox" role="note"><p>${escapeHtml(t.sandbox)}</p><details><summary>${escapeHtml(t.sandboxNumbers)}</summary><ul>${numbers}</ul></details></div>`;
}

/** `logo` is a `data:image/…` URL built by the service from bytes it checked, or null. */
export function merchantBlock(merchantName: string, logo: string | null): string {
  const img = logo ? `<img class="logo" src="${escapeHtml(logo)}" alt="" width="48" height="48">` : '';
  return `<div class="merchant">${img}<p class="merchant-name">${escapeHtml(merchantName)}</p></div>`;
}
