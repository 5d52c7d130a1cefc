import { appError, type AppError } from '@mmp/protocol';
import { LINK_GONE, whyUnusable, type Unusable } from '../domain/link-rules.js';
import { findLink, holdUse, raiseUsageCount, releaseUse } from '../store/links.js';
import { countPaidSessions } from '../store/sessions.js';
import type { Deps } from '../deps.js';

/** Rounds of read and guarded write before giving up, when many payers take uses of one link at once. */
const HOLD_ATTEMPTS = 25;

/** The catalog has no link codes; the reason travels as the field message for the page to translate. */
export function linkRefusal(unusable: Unusable): AppError {
  return appError('invalid_request', unusable.message, [{ field: 'link', message: unusable.code }]);
}

/**
 * The link as it is now, refused unless the session may pay it: the merchant may have
 * switched it off, its date may have passed, other payers may have used it up since the
 * session opened. A use this session holds already is its own, not another payer's.
 */
async function usableLink(deps: Deps, linkId: string, sessionId: string) {
  const link = await findLink(deps.db, linkId);
  if (!link) throw linkRefusal(LINK_GONE);
  const own = link.reservedBy?.includes(sessionId) ?? false;
  const refusal = whyUnusable(link, deps.now(), (link.reserved ?? 0) - (own ? 1 : 0));
  if (refusal) throw linkRefusal(refusal);
  return { link, own };
}

/** Refuses, before any payment is made for it, a session whose link cannot be paid now. */
export async function checkLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  await usableLink(deps, linkId, sessionId);
}

/**
 * Checks the link again and, for a link with `maxUses`, holds one use for the session until
 * its payment ends. Payers racing for the last use each re-read and retry, and at most
 * `maxUses - usageCount` of them hold one. A session asking again keeps its one hold.
 */
export async function holdLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  for (let attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
    const { link, own } = await usableLink(deps, linkId, sessionId);
    if (own || link.maxUses === null) return;
    if (await holdUse(deps.db, link, sessionId)) return;
  }
  throw appError('service_unavailable', 'Too many payments of this link at once; try again.');
}

/** Gives the session's held use back; repeating it changes nothing. */
export function releaseLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  return releaseUse(deps.db, linkId, sessionId);
}

/**
 * A completed payment turns its held use into a counted one. Usage is recounted from the
 * link's successful sessions rather than incremented (a redelivered event, or a crash between
 * two writes, never counts a payment twice), and only then is the hold given back: for a
 * moment the use counts twice, which can refuse a payer but never let one too many through.
 */
export async function countLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  await raiseUsageCount(deps.db, linkId, await countPaidSessions(deps.db, linkId));
  await releaseLinkUse(deps, linkId, sessionId);
}
