import {
  MAX_AMOUNT,
  MIN_AMOUNT,
  appError,
  isAmountInRange,
  normalizePhone,
  validationMessage,
} from '@mmp/protocol';
import { chooseAmount, whyUnusable } from '../domain/link-rules.js';
import { defaultCountry } from '../domain/operators.js';
import type { LinkDoc } from '../store/links.js';
import { insertSession, type SessionDoc } from '../store/sessions.js';
import type { Deps } from '../deps.js';
import { linkRefusal } from './link-uses.js';
import { buildSession } from './sessions.js';

/** What the payer gives when starting to pay a link: the amount of a variable link, what the link collects. */
export type LinkAnswers = {
  amount?: number;
  name?: string;
  email?: string;
  phone?: string;
  customFields: Record<string, string>;
};

function missing(field: string): never {
  throw appError('missing_required_field', `${field} is required`, [
    { field, message: `${field} is required` },
  ]);
}

/** What the link asks for must be there; the phone must be a real number. */
function collected(link: LinkDoc, answers: LinkAnswers) {
  if (link.collectName && !answers.name) missing('name');
  if (link.collectEmail && !answers.email) missing('email');
  if (link.collectPhone && !answers.phone) missing('phone');
  let phone: string | null = null;
  if (answers.phone) {
    const normalized = normalizePhone(answers.phone, defaultCountry(link.currency));
    if (!normalized)
      throw appError('invalid_phone', 'phone is not a valid phone number.', [
        { field: 'phone', message: 'not a valid phone number' },
      ]);
    phone = normalized.e164;
  }
  const known = new Map(link.customFields.map((f) => [f.key, f]));
  const unknown = Object.keys(answers.customFields).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    const fields = unknown.map((key) => ({ field: `customFields.${key}`, message: 'unknown field' }));
    throw appError('validation_error', validationMessage(fields), fields);
  }
  const customFields: Record<string, string> = {};
  for (const field of link.customFields) {
    const value = answers.customFields[field.key]?.trim();
    if (!value) {
      if (field.required) missing(`customFields.${field.key}`);
      continue;
    }
    if (field.type === 'select' && field.options && !field.options.includes(value)) {
      const fields = [
        { field: `customFields.${field.key}`, message: `must be one of ${field.options.join(', ')}` },
      ];
      throw appError('validation_error', validationMessage(fields), fields);
    }
    customFields[field.key] = value;
  }
  return { customer: { name: answers.name ?? null, email: answers.email ?? null, phone }, customFields };
}

/**
 * A payer starts paying a link: a checkout session of the link, for the amount and with what
 * the link collects. Uses held by payments under way do not stop a session from opening;
 * paying does.
 */
export async function startLinkSession(deps: Deps, link: LinkDoc, answers: LinkAnswers): Promise<SessionDoc> {
  const unusable = whyUnusable(link, deps.now());
  if (unusable) throw linkRefusal(unusable);
  const amount = chooseAmount(link, answers.amount, { min: MIN_AMOUNT, max: MAX_AMOUNT });
  if (typeof amount !== 'number' || !isAmountInRange(amount)) {
    const message = typeof amount === 'number' ? 'amount is out of range.' : amount.message;
    throw appError('invalid_amount', message, [{ field: 'amount', message }]);
  }
  const { customer, customFields } = collected(link, answers);
  const session = buildSession(deps, {
    projectId: link.projectId,
    livemode: link.livemode,
    origin: 'link',
    amount,
    currency: link.currency,
    description: link.description ?? link.name,
    customer,
    customFields,
    metadata: { paymentLinkId: link._id, shortCode: link.shortCode },
    linkId: link._id,
  });
  await insertSession(deps.db, session);
  return session;
}
