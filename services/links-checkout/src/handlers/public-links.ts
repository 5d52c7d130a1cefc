import type { Operation } from '@mmp/platform';
import {
  ShortCode,
  appError,
  isAmountInRange,
  MAX_AMOUNT,
  MIN_AMOUNT,
  normalizePhone,
  validationMessage,
} from '@mmp/protocol';
import { chooseAmount, whyUnusable } from '../domain/link-rules.js';
import { defaultCountry } from '../domain/operators.js';
import type { LinkDoc } from '../store/collections.js';
import type { Deps } from './deps.js';
import { linkRefusal } from './link-uses.js';
import { buildSession } from './new-session.js';
import { StartLinkBody, parseBody, type StartLinkBody as StartLink } from './schemas.js';
import { toCheckoutSession, toPublicPaymentLink } from './views.js';

/** Unknown and malformed codes look the same from outside: nothing to enumerate. */
export async function findLinkByCode(deps: Deps, code: string | undefined): Promise<LinkDoc> {
  const link = ShortCode.safeParse(code).success
    ? await deps.db.links.findOne({ shortCode: code, deletedAt: null })
    : null;
  if (!link) throw appError('resource_not_found', 'No payment link with this code.');
  return link;
}

function missing(field: string): never {
  throw appError('missing_required_field', `${field} is required`, [
    { field, message: `${field} is required` },
  ]);
}

/** What the link asks for must be there; the phone must be a real number. */
function collected(link: LinkDoc, body: StartLink) {
  if (link.collectName && !body.name) missing('name');
  if (link.collectEmail && !body.email) missing('email');
  if (link.collectPhone && !body.phone) missing('phone');
  let phone: string | null = null;
  if (body.phone) {
    const normalized = normalizePhone(body.phone, defaultCountry(link.currency));
    if (!normalized)
      throw appError('invalid_phone', 'phone is not a valid phone number.', [
        { field: 'phone', message: 'not a valid phone number' },
      ]);
    phone = normalized.e164;
  }
  const known = new Map(link.customFields.map((f) => [f.key, f]));
  const unknown = Object.keys(body.customFields).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    const fields = unknown.map((key) => ({ field: `customFields.${key}`, message: 'unknown field' }));
    throw appError('validation_error', validationMessage(fields), fields);
  }
  const customFields: Record<string, string> = {};
  for (const field of link.customFields) {
    const value = body.customFields[field.key]?.trim();
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
  return { customer: { name: body.name ?? null, email: body.email ?? null, phone }, customFields };
}

export function publicLinkOperations(deps: Deps): Record<string, Operation> {
  const { db, settings } = deps;
  return {
    'links.public': async (request) => {
      const link = await findLinkByCode(deps, request.params.shortCode);
      const merchant = await deps.merchants.get(link.projectId);
      return { status: 200, body: toPublicPaymentLink(link, settings.publicUrl, deps.now(), merchant) };
    },

    'links.start': async (request) => {
      const link = await findLinkByCode(deps, request.params.shortCode);
      const body = parseBody(StartLinkBody, request.body);
      const now = deps.now();
      // Uses held by payments under way do not stop a session from opening; paying does.
      const unusable = whyUnusable(link, now);
      if (unusable) throw linkRefusal(unusable);
      const amount = chooseAmount(link, body.amount, { min: MIN_AMOUNT, max: MAX_AMOUNT });
      if (typeof amount !== 'number' || !isAmountInRange(amount)) {
        const message = typeof amount === 'number' ? 'amount is out of range.' : amount.message;
        throw appError('invalid_amount', message, [{ field: 'amount', message }]);
      }
      const { customer, customFields } = collected(link, body);
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
      await db.sessions.insertOne(session);
      const merchant = await deps.merchants.get(link.projectId);
      return { status: 201, body: toCheckoutSession(session, settings.publicUrl, merchant) };
    },
  };
}
