import { MESSAGES, fill, formatAmount, type Lang, type Messages } from './i18n.js';
import { escapeHtml, layout, merchantBlock } from './html.js';

export type LinkField = { key: string; label: string; type: string; required: boolean; options?: string[] };

export type LinkView = {
  shortCode: string;
  name: string;
  description: string | null;
  amount: number | null;
  currency: string;
  minAmount: number;
  maxAmount: number;
  status: 'ACTIVE' | 'INACTIVE' | 'EXPIRED';
  /** Set when the link is ACTIVE but cannot take another payment. */
  exhausted: boolean;
  collectPhone: boolean;
  collectEmail: boolean;
  collectName: boolean;
  customFields: LinkField[];
  merchantName: string;
  /** A `data:` URL of the logo the service fetched, or null. */
  merchantLogo: string | null;
  livemode: boolean;
  /** A number of the link's country, for the phone field's hint. */
  phoneExample: string;
};

const INPUT_TYPES: Record<string, string> = {
  text: 'text',
  number: 'number',
  email: 'email',
  phone: 'tel',
  tel: 'tel',
};

function field(
  id: string,
  label: string,
  input: string,
  required: boolean,
  t: Messages,
  hint?: string,
): string {
  const optional = required ? '' : ` <span class="hint">${escapeHtml(t.linkOptional)}</span>`;
  const described = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  return `<label for="${id}">${escapeHtml(label)}${optional}</label>
${input.replace('<input', `<input id="${id}" aria-describedby="${described}"${required ? ' required' : ''}`).replace('<select', `<select id="${id}" aria-describedby="${described}"${required ? ' required' : ''}`)}
${hint ? `<p id="${id}-hint" class="hint">${escapeHtml(hint)}</p>` : ''}<p id="${id}-error" class="error" hidden></p>`;
}

function customField(f: LinkField, index: number, t: Messages): string {
  const name = `custom.${f.key}`;
  const input =
    f.type === 'select' && f.options?.length
      ? `<select name="${escapeHtml(name)}"><option value=""></option>${f.options
          .map((o) => `<option>${escapeHtml(o)}</option>`)
          .join('')}</select>`
      : `<input name="${escapeHtml(name)}" type="${INPUT_TYPES[f.type] ?? 'text'}">`;
  return field(`custom-${index}`, f.label, input, f.required, t);
}

function unavailableReason(view: LinkView, t: Messages): string | null {
  if (view.status === 'INACTIVE') return t.linkInactive;
  if (view.status === 'EXPIRED') return t.linkExpired;
  if (view.exhausted) return t.linkExhausted;
  return null;
}

export function renderLinkPage(view: LinkView, lang: Lang): string {
  const t = MESSAGES[lang];
  const head = `${merchantBlock(view.merchantName, view.merchantLogo)}
<h1>${escapeHtml(view.name)}</h1>
${view.description ? `<p class="description">${escapeHtml(view.description)}</p>` : ''}`;
  const reason = unavailableReason(view, t);
  const common = { lang, livemode: view.livemode, currency: view.currency, path: `/pay/${view.shortCode}` };
  if (reason) {
    return layout({
      ...common,
      title: `${t.linkUnavailableTitle}: ${view.name}`,
      content: `${head}<section class="screen" id="screen-unavailable"><h2 class="ko">${escapeHtml(t.linkUnavailableTitle)}</h2><p role="status">${escapeHtml(reason)}</p></section>`,
    });
  }
  const min = formatAmount(view.minAmount, view.currency, lang);
  const max = formatAmount(view.maxAmount, view.currency, lang);
  const amount =
    view.amount !== null
      ? `<p class="amount">${escapeHtml(formatAmount(view.amount, view.currency, lang))}</p>`
      : field(
          'amount',
          fill(t.linkAmount, {
            currency: view.currency === 'XAF' || view.currency === 'XOF' ? 'FCFA' : view.currency,
          }),
          `<input name="amount" type="number" inputmode="numeric" min="${view.minAmount}" max="${view.maxAmount}" step="1">`,
          true,
          t,
          fill(t.linkAmountHint, { min, max }),
        );
  const fields = [
    view.collectName
      ? field('name', t.linkName, '<input name="name" type="text" autocomplete="name">', true, t)
      : '',
    view.collectEmail
      ? field('email', t.linkEmail, '<input name="email" type="email" autocomplete="email">', true, t)
      : '',
    view.collectPhone
      ? field(
          'customer-phone',
          t.linkPhone,
          '<input name="phone" type="tel" inputmode="tel" autocomplete="tel">',
          true,
          t,
          fill(t.phoneHint, { example: view.phoneExample }),
        )
      : '',
    ...view.customFields.map((f, i) => customField(f, i, t)),
  ].join('\n');
  return layout({
    ...common,
    title: `${view.name} · ${view.merchantName}`,
    script: 'link.js',
    content: `${head}
<noscript><p class="error">${escapeHtml(t.noscript)}</p></noscript>
<form id="link-form" novalidate>
${amount}
${fields}
<p id="form-error" class="error" role="alert" hidden></p>
<button type="submit" class="button primary">${escapeHtml(t.linkContinue)}</button>
</form>`,
    data: {
      shortCode: view.shortCode,
      lang,
      variable: view.amount === null,
      min: view.minAmount,
      max: view.maxAmount,
      t: {
        errorFieldRequired: t.errorFieldRequired,
        errorAmount: fill(t.errorAmount, { min, max }),
        errorEmail: t.errorEmail,
        errorPhone: fill(t.errorPhone, { example: view.phoneExample }),
        errorNetwork: t.errorNetwork,
        linkInactive: t.linkInactive,
        linkExpired: t.linkExpired,
        linkExhausted: t.linkExhausted,
      },
    },
  });
}
