import type { Collection, Filter } from '@mmp/platform';
import type { Currency, CustomField } from '@mmp/protocol';
import type { LinkStatus } from '../domain/link-rules.js';

export type LinkDoc = {
  _id: string;
  shortCode: string;
  projectId: string;
  livemode: boolean;
  name: string;
  description: string | null;
  amount: number | null;
  currency: Currency;
  minAmount: number | null;
  maxAmount: number | null;
  /** Stored ACTIVE or INACTIVE as the merchant set it; EXPIRED when the sweep saw its date pass. */
  status: LinkStatus;
  collectPhone: boolean;
  collectEmail: boolean;
  collectName: boolean;
  customFields: CustomField[];
  maxUses: number | null;
  usageCount: number;
  /**
   * Uses held by payments under way (links with maxUses only): the ids of their sessions
   * and their number, changed together in one write so a guard can compare the count.
   * Absent on links stored before holds existed, which the guards read as none.
   */
  reservedBy?: string[];
  reserved?: number;
  expiresAt: Date | null;
  /** Set by DELETE: the link is gone from the API and its page; its sessions and payments stay. */
  deletedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** What the queries below work on: the service's payment links (`LinksCheckoutDb` is one). */
export type LinksDb = { links: Collection<LinkDoc> };

/** Project and environment of the caller: every merchant query is confined to both. */
export type Scope = { projectId: string; livemode: boolean };

export function insertLink(db: LinksDb, link: LinkDoc): Promise<void> {
  return db.links.insertOne(link);
}

export function findLink(db: LinksDb, id: string): Promise<LinkDoc | null> {
  return db.links.findOne({ _id: id });
}

/** A link of this project and environment that is not deleted. */
export function findOwnLink(db: LinksDb, id: string, scope: Scope): Promise<LinkDoc | null> {
  return db.links.findOne({ _id: id, projectId: scope.projectId, livemode: scope.livemode, deletedAt: null });
}

/** A link its page can show; a deleted link's code leads nowhere. */
export function findLinkByCode(db: LinksDb, shortCode: string): Promise<LinkDoc | null> {
  return db.links.findOne({ shortCode, deletedAt: null });
}

/** A link that is not deleted (a session's link, for its retry URL). */
export function findLiveLink(db: LinksDb, id: string): Promise<LinkDoc | null> {
  return db.links.findOne({ _id: id, deletedAt: null });
}

function statusFilter(status: LinkStatus, now: Date): Filter {
  if (status === 'INACTIVE') return { status: 'INACTIVE' };
  if (status === 'ACTIVE')
    return { status: 'ACTIVE', $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
  return { $or: [{ status: 'EXPIRED' }, { status: 'ACTIVE', expiresAt: { $lte: now } }] };
}

/** A page of the project's links, newest first, with the count of all that match. */
export async function listLinks(
  db: LinksDb,
  scope: Scope,
  query: { status?: LinkStatus; page: number; limit: number },
  now: Date,
): Promise<{ links: LinkDoc[]; total: number }> {
  const filter: Filter = {
    projectId: scope.projectId,
    livemode: scope.livemode,
    deletedAt: null,
    ...(query.status ? statusFilter(query.status, now) : {}),
  };
  const skip = (query.page - 1) * query.limit;
  const [links, total] = await Promise.all([
    db.links.find(filter, { sort: { createdAt: -1, _id: -1 }, skip, limit: query.limit }),
    db.links.count(filter),
  ]);
  return { links, total };
}

/** Guarded on `updatedAt`: two concurrent edits cannot combine into terms nobody checked. */
export function updateLinkTerms(
  db: LinksDb,
  link: LinkDoc,
  changes: Partial<LinkDoc>,
): Promise<LinkDoc | null> {
  return db.links.findOneAndUpdate({ _id: link._id, updatedAt: link.updatedAt }, { $set: changes });
}

export function markLinkDeleted(db: LinksDb, link: LinkDoc, at: Date): Promise<LinkDoc | null> {
  return db.links.findOneAndUpdate(
    { _id: link._id, deletedAt: null },
    { $set: { deletedAt: at, updatedAt: at } },
  );
}

/**
 * Holds one use for the session, guarded on the link's terms (`updatedAt` moves with every
 * edit, deletion and expiry sweep), its counted uses and its held count: null when any of
 * them changed since `link` was read.
 */
export function holdUse(db: LinksDb, link: LinkDoc, sessionId: string): Promise<LinkDoc | null> {
  return db.links.findOneAndUpdate(
    {
      _id: link._id,
      updatedAt: link.updatedAt,
      usageCount: link.usageCount,
      reserved: link.reserved ?? null,
    },
    { $push: { reservedBy: { $each: [sessionId] } }, $inc: { reserved: 1 } },
  );
}

/** Guarded on the hold itself, so a repeated release changes nothing. */
export async function releaseUse(db: LinksDb, linkId: string, sessionId: string): Promise<void> {
  await db.links.findOneAndUpdate(
    { _id: linkId, reservedBy: sessionId },
    { $pull: { reservedBy: sessionId }, $inc: { reserved: -1 } },
  );
}

/** Raises the counted uses to `used`; a slower recount never lowers a newer one. */
export async function raiseUsageCount(db: LinksDb, linkId: string, used: number): Promise<void> {
  await db.links.findOneAndUpdate({ _id: linkId, usageCount: { $lt: used } }, { $set: { usageCount: used } });
}

/** Active links whose date passed within `due`, stored as EXPIRED (for list filters). */
export function expireDueLinks(db: LinksDb, due: Record<string, Date>, now: Date): Promise<number> {
  return db.links.updateMany(
    { status: 'ACTIVE', expiresAt: { $ne: null, ...due } },
    { $set: { status: 'EXPIRED', updatedAt: now } },
  );
}
