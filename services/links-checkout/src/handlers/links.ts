import { DuplicateKeyError, type Filter, type Operation } from '@mmp/platform';
import {
  CreatePaymentLinkBody,
  UpdatePaymentLinkBody,
  appError,
  uuid,
  validationMessage,
  requireActor,
} from '@mmp/protocol';
import { termProblems, type LinkStatus } from '../domain/link-rules.js';
import type { LinkDoc } from '../store/collections.js';
import { type Deps } from './deps.js';
import { ListPaymentLinksQuery, parseBody, parseQuery } from './schemas.js';
import { toPaymentLink } from './views.js';

/** 62^8 codes make a collision rare; a few fresh draws make a failure practically impossible. */
const SHORT_CODE_ATTEMPTS = 5;

function assertTerms(link: Pick<LinkDoc, 'amount' | 'minAmount' | 'maxAmount'>): void {
  const problems = termProblems(link);
  if (problems.length > 0) throw appError('validation_error', validationMessage(problems), problems);
}

function statusFilter(status: LinkStatus, now: Date): Filter {
  if (status === 'INACTIVE') return { status: 'INACTIVE' };
  if (status === 'ACTIVE')
    return { status: 'ACTIVE', $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
  return { $or: [{ status: 'EXPIRED' }, { status: 'ACTIVE', expiresAt: { $lte: now } }] };
}

/** A link of the caller's project and environment, or 404 whoever else owns it. */
export async function findOwnLink(
  deps: Deps,
  id: string | undefined,
  projectId: string,
  livemode: boolean,
): Promise<LinkDoc> {
  const link = id ? await deps.db.links.findOne({ _id: id, projectId, livemode, deletedAt: null }) : null;
  if (!link) throw appError('resource_not_found', 'No payment link with this id.');
  return link;
}

export function linkOperations(deps: Deps): Record<string, Operation> {
  const { db, settings } = deps;
  return {
    'links.create': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const body = parseBody(CreatePaymentLinkBody, request.body);
      const now = deps.now();
      const base = {
        _id: uuid(),
        projectId: merchant.projectId,
        livemode: merchant.livemode,
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
          await db.links.insertOne(link);
          return { status: 201, body: toPaymentLink(link, settings.publicUrl, now) };
        } catch (error) {
          if (!(error instanceof DuplicateKeyError) || attempt >= SHORT_CODE_ATTEMPTS) throw error;
        }
      }
    },

    'links.list': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const query = parseQuery(ListPaymentLinksQuery, request.query);
      const now = deps.now();
      const filter: Filter = {
        projectId: merchant.projectId,
        livemode: merchant.livemode,
        deletedAt: null,
        ...(query.status ? statusFilter(query.status, now) : {}),
      };
      const skip = (query.page - 1) * query.limit;
      const [links, total] = await Promise.all([
        db.links.find(filter, { sort: { createdAt: -1, _id: -1 }, skip, limit: query.limit }),
        db.links.count(filter),
      ]);
      return {
        status: 200,
        body: {
          data: links.map((link) => toPaymentLink(link, settings.publicUrl, now)),
          has_more: skip + links.length < total,
          meta: { limit: query.limit, total, page: query.page },
        },
      };
    },

    'links.retrieve': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const link = await findOwnLink(deps, request.params.id, merchant.projectId, merchant.livemode);
      return { status: 200, body: toPaymentLink(link, settings.publicUrl, deps.now()) };
    },

    'links.update': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const body = parseBody(UpdatePaymentLinkBody, request.body);
      const current = await findOwnLink(deps, request.params.id, merchant.projectId, merchant.livemode);
      const now = deps.now();
      const expiresAt =
        body.expiresAt === undefined ? current.expiresAt : body.expiresAt ? new Date(body.expiresAt) : null;
      const merged = { ...current, ...body, expiresAt };
      // A fixed amount set on a variable link drops its bounds unless the update sets them.
      if (body.amount != null && body.minAmount === undefined) merged.minAmount = null;
      if (body.amount != null && body.maxAmount === undefined) merged.maxAmount = null;
      assertTerms(merged);
      // A stored EXPIRED only records the sweep; a new date or status decides again.
      const status: LinkStatus =
        body.status ??
        (current.status === 'EXPIRED' && body.expiresAt !== undefined ? 'ACTIVE' : current.status);
      const changes = {
        ...body,
        expiresAt,
        minAmount: merged.minAmount,
        maxAmount: merged.maxAmount,
        status,
        updatedAt: now,
      };
      // Guarded on updatedAt: two concurrent edits cannot combine into terms nobody checked.
      const updated = await db.links.findOneAndUpdate(
        { _id: current._id, updatedAt: current.updatedAt },
        { $set: changes },
      );
      if (!updated) throw appError('invalid_state', 'The payment link changed while updating; retry.');
      return { status: 200, body: toPaymentLink(updated, settings.publicUrl, now) };
    },

    /**
     * Deleting archives: the link leaves the API, its page and new payments, while its
     * sessions, payments and short code stay (an old shared URL never reaches another link).
     */
    'links.delete': async (request, { actor }) => {
      const merchant = requireActor(actor, ['merchant']);
      const link = await findOwnLink(deps, request.params.id, merchant.projectId, merchant.livemode);
      const now = deps.now();
      const deleted = await db.links.findOneAndUpdate(
        { _id: link._id, deletedAt: null },
        { $set: { deletedAt: now, updatedAt: now } },
      );
      if (!deleted) throw appError('resource_not_found', 'No payment link with this id.');
      return { status: 200, body: { id: link._id, deleted: true } };
    },
  };
}
