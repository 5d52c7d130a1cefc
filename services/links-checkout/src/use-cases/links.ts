import { DuplicateKeyError } from '@mmp/platform';
import {
  appError,
  uuid,
  validationMessage,
  type CreatePaymentLinkBody,
  type UpdatePaymentLinkBody,
} from '@mmp/protocol';
import { termProblems, type LinkStatus } from '../domain/link-rules.js';
import {
  findOwnLink,
  insertLink,
  markLinkDeleted,
  updateLinkTerms,
  type LinkDoc,
  type Scope,
} from '../store/links.js';
import type { Deps } from '../deps.js';

/** 62^8 codes make a collision rare; a few fresh draws make a failure practically impossible. */
const SHORT_CODE_ATTEMPTS = 5;

const linkNotFound = () => appError('resource_not_found', 'No payment link with this id.');

function assertTerms(link: Pick<LinkDoc, 'amount' | 'minAmount' | 'maxAmount'>): void {
  const problems = termProblems(link);
  if (problems.length > 0) throw appError('validation_error', validationMessage(problems), problems);
}

/** A link of the caller's project and environment, or 404 whoever else owns it. */
export async function ownLink(deps: Deps, id: string | undefined, scope: Scope): Promise<LinkDoc> {
  const link = id ? await findOwnLink(deps.db, id, scope) : null;
  if (!link) throw linkNotFound();
  return link;
}

/** A new ACTIVE link under a fresh short code, drawn again while the one drawn is taken. */
export async function createLink(deps: Deps, scope: Scope, body: CreatePaymentLinkBody): Promise<LinkDoc> {
  const now = deps.now();
  const base = {
    _id: uuid(),
    projectId: scope.projectId,
    livemode: scope.livemode,
    name: body.name,
    description: body.description ?? null,
    amount: body.amount ?? null,
    currency: body.currency,
    minAmount: body.minAmount ?? null,
    maxAmount: body.maxAmount ?? null,
    status: 'ACTIVE' as const,
    collectPhone: body.collectPhone,
    collectEmail: body.collectEmail,
    collectName: body.collectName,
    customFields: body.customFields,
    maxUses: body.maxUses ?? null,
    usageCount: 0,
    reservedBy: [],
    reserved: 0,
    expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  for (let attempt = 1; ; attempt++) {
    const link: LinkDoc = { ...base, shortCode: deps.newShortCode() };
    try {
      await insertLink(deps.db, link);
      return link;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError) || attempt >= SHORT_CODE_ATTEMPTS) throw error;
    }
  }
}

/** New terms checked as a whole, on the link as it was read (a concurrent edit makes this one retry). */
export async function updateLink(
  deps: Deps,
  current: LinkDoc,
  body: UpdatePaymentLinkBody,
): Promise<LinkDoc> {
  const expiresAt =
    body.expiresAt === undefined ? current.expiresAt : body.expiresAt ? new Date(body.expiresAt) : null;
  const merged = { ...current, ...body, expiresAt };
  // A fixed amount set on a variable link drops its bounds unless the update sets them.
  if (body.amount != null && body.minAmount === undefined) merged.minAmount = null;
  if (body.amount != null && body.maxAmount === undefined) merged.maxAmount = null;
  assertTerms(merged);
  // A stored EXPIRED only records the sweep; a new date or status decides again.
  const status: LinkStatus =
    body.status ?? (current.status === 'EXPIRED' && body.expiresAt !== undefined ? 'ACTIVE' : current.status);
  const updated = await updateLinkTerms(deps.db, current, {
    ...body,
    expiresAt,
    minAmount: merged.minAmount,
    maxAmount: merged.maxAmount,
    status,
    updatedAt: deps.now(),
  });
  if (!updated) throw appError('invalid_state', 'The payment link changed while updating; retry.');
  return updated;
}

/**
 * Deleting archives: the link leaves the API, its page and new payments, while its
 * sessions, payments and short code stay (an old shared URL never reaches another link).
 */
export async function deleteLink(deps: Deps, link: LinkDoc): Promise<void> {
  if (!(await markLinkDeleted(deps.db, link, deps.now()))) throw linkNotFound();
}
