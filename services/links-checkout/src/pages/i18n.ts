/** The two languages of the hosted pages; French first, as most payers read it. */
export const LANGS = ['fr', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/**
 * `?lang=` (the visible toggle) wins over the browser's Accept-Language; anything else
 * falls back to French.
 */
export function chooseLang(queryLang: unknown, acceptLanguage: string | undefined): Lang {
  if (queryLang === 'fr' || queryLang === 'en') return queryLang;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((entry) => entry.tag)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    const base = tag.split('-')[0];
    if (base === 'fr' || base === 'en') return base;
  }
  return 'fr';
}

const en = {
  htmlTitle: 'Payment',
  switchTo: 'Français',
  switchLang: 'fr',
  sandbox: 'Sandbox: test mode, no real money moves.',
  sandboxNumbers: 'Test numbers',
  sandbox_success: 'success',
  sandbox_insufficient_balance: 'insufficient balance',
  sandbox_pin_error: 'wrong PIN',
  sandbox_transaction_limit: 'limit exceeded',
  sandbox_account_inactive: 'inactive wallet',
  sandbox_invalid_phone: 'unknown number',
  sandbox_payment_expired: 'never confirmed (expires)',
  noscript: 'This page needs JavaScript to take your payment.',
  payTo: 'Pay',
  operator: 'Choose your mobile money operator',
  phone: 'Mobile money number',
  phoneHint: 'For example: {example}',
  pay: 'Pay {amount}',
  cancel: 'Cancel payment',
  waitingTitle: 'Confirm on your phone',
  waitingText:
    'A payment request has been sent to {phone}. Approve the prompt on your phone and enter your PIN to confirm.',
  timeLeft: 'Time left to confirm:',
  status_idle: 'Waiting for payment.',
  status_processing: 'Sending the request to your operator…',
  status_pending_ussd: 'Waiting for your confirmation on the phone…',
  successTitle: 'Payment received',
  successText: 'Thank you. Your payment of {amount} to {merchant} has been received.',
  failedTitle: 'Payment failed',
  expiredTitle: 'Payment expired',
  expiredText: 'The time to confirm this payment has run out. No money was taken.',
  cancelledTitle: 'Payment cancelled',
  cancelledText: 'You cancelled this payment. No money was taken.',
  retry: 'Try again',
  backToMerchant: 'Return to the merchant',
  closePage: 'You can close this page and go back to the merchant.',
  redirecting: 'Redirecting you to the merchant…',
  notFoundTitle: 'Page not found',
  notFoundText: 'This payment page does not exist. Check the link you received.',
  errorRequired: 'Choose an operator.',
  errorPhoneRequired: 'Enter your mobile money number.',
  errorFix: 'Correct the fields above to continue.',
  errorPhone: 'Enter a valid phone number for this operator, e.g. {example}.',
  errorOperator: 'This number does not belong to {operator}. Check the number or choose its operator.',
  errorNetwork: 'The connection failed. Check your network and try again.',
  failure_insufficient_balance: 'Your mobile money balance is too low for this payment.',
  failure_account_inactive: 'Your mobile money account is inactive. Contact your operator.',
  failure_invalid_phone: 'This number does not belong to the chosen operator.',
  failure_transaction_limit: 'This payment exceeds your daily or monthly limit.',
  failure_pin_error: 'The PIN entered was wrong.',
  failure_payment_expired: 'The payment was not confirmed in time.',
  failure_provider_unavailable: 'The operator is unavailable right now. Try again in a few minutes.',
  failure_provider_timeout: 'The operator did not answer in time. Try again in a few minutes.',
  failure_default: 'The payment could not be completed.',
  linkAmount: 'Amount ({currency})',
  linkAmountHint: 'Between {min} and {max}',
  linkName: 'Full name',
  linkEmail: 'E-mail address',
  linkPhone: 'Phone number',
  linkContinue: 'Continue to payment',
  linkOptional: '(optional)',
  linkInactive: 'This payment link has been deactivated by the merchant.',
  linkExpired: 'This payment link has expired.',
  linkExhausted: 'This payment link has reached its maximum number of uses.',
  linkUnavailableTitle: 'Link unavailable',
  errorFieldRequired: 'This field is required.',
  errorAmount: 'Enter an amount between {min} and {max}.',
  errorEmail: 'Enter a valid e-mail address.',
};
export type Messages = typeof en;

const fr: Messages = {
  htmlTitle: 'Paiement',
  switchTo: 'English',
  switchLang: 'en',
  sandbox: 'Bac à sable : mode test, aucun argent réel.',
  sandboxNumbers: 'Numéros de test',
  sandbox_success: 'succès',
  sandbox_insufficient_balance: 'solde insuffisant',
  sandbox_pin_error: 'code PIN erroné',
  sandbox_transaction_limit: 'plafond dépassé',
  sandbox_account_inactive: 'compte inactif',
  sandbox_invalid_phone: 'numéro inconnu',
  sandbox_payment_expired: 'jamais confirmé (expire)',
  noscript: 'Cette page a besoin de JavaScript pour encaisser votre paiement.',
  payTo: 'Payer',
  operator: 'Choisissez votre opérateur mobile money',
  phone: 'Numéro mobile money',
  phoneHint: 'Par exemple : {example}',
  pay: 'Payer {amount}',
  cancel: 'Annuler le paiement',
  waitingTitle: 'Confirmez sur votre téléphone',
  waitingText:
    'Une demande de paiement a été envoyée au {phone}. Acceptez-la sur votre téléphone et saisissez votre code PIN pour confirmer.',
  timeLeft: 'Temps restant pour confirmer :',
  status_idle: 'En attente du paiement.',
  status_processing: 'Envoi de la demande à votre opérateur…',
  status_pending_ussd: 'En attente de votre confirmation sur le téléphone…',
  successTitle: 'Paiement reçu',
  successText: 'Merci. Votre paiement de {amount} à {merchant} a bien été reçu.',
  failedTitle: 'Paiement échoué',
  expiredTitle: 'Paiement expiré',
  expiredText: "Le délai de confirmation est dépassé. Aucun argent n'a été prélevé.",
  cancelledTitle: 'Paiement annulé',
  cancelledText: "Vous avez annulé ce paiement. Aucun argent n'a été prélevé.",
  retry: 'Réessayer',
  backToMerchant: 'Retour chez le marchand',
  closePage: 'Vous pouvez fermer cette page et revenir chez le marchand.',
  redirecting: 'Redirection vers le marchand…',
  notFoundTitle: 'Page introuvable',
  notFoundText: "Cette page de paiement n'existe pas. Vérifiez le lien reçu.",
  errorRequired: 'Choisissez un opérateur.',
  errorPhoneRequired: 'Saisissez votre numéro mobile money.',
  errorFix: 'Corrigez les champs ci-dessus pour continuer.',
  errorPhone: 'Saisissez un numéro valide pour cet opérateur, par ex. {example}.',
  errorOperator: "Ce numéro n'appartient pas à {operator}. Vérifiez le numéro ou choisissez son opérateur.",
  errorNetwork: 'La connexion a échoué. Vérifiez votre réseau et réessayez.',
  failure_insufficient_balance: 'Votre solde mobile money est insuffisant pour ce paiement.',
  failure_account_inactive: 'Votre compte mobile money est inactif. Contactez votre opérateur.',
  failure_invalid_phone: "Ce numéro n'appartient pas à l'opérateur choisi.",
  failure_transaction_limit: 'Ce paiement dépasse votre plafond journalier ou mensuel.',
  failure_pin_error: 'Le code PIN saisi est incorrect.',
  failure_payment_expired: "Le paiement n'a pas été confirmé à temps.",
  failure_provider_unavailable:
    "L'opérateur est indisponible pour le moment. Réessayez dans quelques minutes.",
  failure_provider_timeout: "L'opérateur n'a pas répondu à temps. Réessayez dans quelques minutes.",
  failure_default: "Le paiement n'a pas pu aboutir.",
  linkAmount: 'Montant ({currency})',
  linkAmountHint: 'Entre {min} et {max}',
  linkName: 'Nom complet',
  linkEmail: 'Adresse e-mail',
  linkPhone: 'Numéro de téléphone',
  linkContinue: 'Continuer vers le paiement',
  linkOptional: '(facultatif)',
  linkInactive: 'Ce lien de paiement a été désactivé par le marchand.',
  linkExpired: 'Ce lien de paiement a expiré.',
  linkExhausted: "Ce lien de paiement a atteint son nombre maximal d'utilisations.",
  linkUnavailableTitle: 'Lien indisponible',
  errorFieldRequired: 'Ce champ est obligatoire.',
  errorAmount: 'Saisissez un montant entre {min} et {max}.',
  errorEmail: 'Saisissez une adresse e-mail valide.',
};

export const MESSAGES: Record<Lang, Messages> = { fr, en };

export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * One formatter per language, made on the first page shown in it: a formatter is costly to
 * make, and making one at start would load ICU's locale data into every idle replica.
 */
const amountFormats = new Map<Lang, Intl.NumberFormat>();

/** Whole francs, grouped the way each language writes them: `5 000 FCFA`, `5,000 FCFA`. */
export function formatAmount(amount: number, currency: string, lang: Lang): string {
  let format = amountFormats.get(lang);
  if (!format) {
    format = new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-US', { maximumFractionDigits: 0 });
    amountFormats.set(lang, format);
  }
  const grouped = format.format(amount);
  const unit = currency === 'XAF' || currency === 'XOF' ? 'FCFA' : currency;
  return `${grouped} ${unit}`;
}

export const NETWORK_LABELS: Record<string, string> = {
  ORANGE_MONEY: 'Orange Money',
  MTN_MOMO: 'MTN Mobile Money',
  WAVE: 'Wave',
  MOOV_MONEY: 'Moov Money',
};
