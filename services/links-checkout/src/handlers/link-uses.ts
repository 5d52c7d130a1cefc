import { appError, type AppError } from '@mmp/protocol';
import { LINK_GONE, whyUnusable, type Unusable } from '../domain/link-rules.js';
import type { Deps } from './deps.js';

/** Rounds of read and guarded write before giving up, when many payers take uses of one link at once. */
const HOLD_ATTEMPTS = 25;

/** The catalog has no link codes; the reason travels as the field message for the page to translate. */
export function linkRefusal(unusable: Unusable): AppError {
  return appError('invalid_request', unusable.message, [{ field: 'link', message: unusable.code }]);
}

/**
 * Checks a link again when its session pays (the merchant may have switched it off, its date
 * may have passed, other payers may have used it up since the session opened) and, for a
 * link with `maxUses`, holds one use for the session until its payment ends. The hold is a
 * compare-and-set on the link's terms (`updatedAt` moves with every edit, deletion and
 * expiry sweep), its counted uses and its held count: payers racing for the last use each
 * re-read and retry, and at most `maxUses - usageCount` of them hold one.
 */
export async function holdLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  for (let attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
    const link = await deps.db.links.findOne({ _id: linkId });
    if (!link) throw linkRefusal(LINK_GONE);
    // A session keeps the hold of an attempt whose outcome was unknown (its payment may exist).
    const own = link.reservedBy?.includes(sessionId) ?? false;
    const refusal = whyUnusable(link, deps.now(), (link.reserved ?? 0) - (own ? 1 : 0));
    if (refusal) throw linkRefusal(refusal);
    if (own || link.maxUses === null) return;
    const held = await deps.db.links.findOneAndUpdate(
      {
        _id: link._id,
        updatedAt: link.updatedAt,
        usageCount: link.usageCount,
        reserved: link.reserved ?? null,
      },
      { $push: { reservedBy: { $each: [sessionId] } }, $inc: { reserved: 1 } },
    );
    if (held) return;
  }
  throw appError('service_unavailable', 'Too many payments of this link at once; try again.');
}

/** Gives the session's held use back; guarded on the hold itself, so a repeated release changes nothing. */
export async function releaseLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  await deps.db.links.findOneAndUpdate(
    { _id: linkId, reservedBy: sessionId },
    { $pull: { reservedBy: sessionId }, $inc: { reserved: -1 } },
  );
}

/**
 * A completed payment turns its held use into a counted one. Usage is recounted from the
 * link's successful sessions rather than incremented (a redelivered event, or a crash between
 * two writes, never counts a payment twice; the guard keeps a slower recount from lowering a
 * newer one), and only then is the hold given back: for a moment the use counts twice, which
 * can refuse a payer but never let one too many through.
 */
export async function countLinkUse(deps: Deps, linkId: string, sessionId: string): Promise<void> {
  const used = await deps.db.sessions.count({ linkId, status: 'success' });
  await deps.db.links.findOneAndUpdate(
    { _id: linkId, usageCount: { $lt: used } },
    { $set: { usageCount: used } },
  );
  await releaseLinkUse(deps, linkId, sessionId);
}
