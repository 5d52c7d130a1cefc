import type { OperationHandler } from '@mmp/platform';
import { ShortCode, appError, type linksApi } from '@mmp/protocol';
import { findLinkByCode, type LinkDoc } from '../store/links.js';
import type { Deps } from '../deps.js';
import { startLinkSession } from '../use-cases/start-link.js';
import { StartLinkBody, parseBody } from './schemas.js';
import { merchantOf, toCheckoutSession, toPublicPaymentLink } from './views.js';

type Api = typeof linksApi;

/** A link by its code, or null: unknown and malformed codes look the same from outside. */
export async function linkOfCode(deps: Deps, code: string | undefined): Promise<LinkDoc | null> {
  return code && ShortCode.safeParse(code).success ? findLinkByCode(deps.db, code) : null;
}

async function requireLinkOfCode(deps: Deps, code: string | undefined): Promise<LinkDoc> {
  const link = await linkOfCode(deps, code);
  if (!link) throw appError('resource_not_found', 'No payment link with this code.');
  return link;
}

/** What anyone with a link's URL may read and do. */
export function publicLinkHandlers(deps: Deps) {
  const { publicUrl } = deps.settings;

  const read: OperationHandler<Api['public']> = async (request) => {
    const link = await requireLinkOfCode(deps, request.params.shortCode);
    const merchant = merchantOf(await deps.projects.get(link.projectId));
    return { status: 200, body: toPublicPaymentLink(link, publicUrl, deps.now(), merchant) };
  };

  const start: OperationHandler<Api['start']> = async (request) => {
    const link = await requireLinkOfCode(deps, request.params.shortCode);
    const session = await startLinkSession(deps, link, parseBody(StartLinkBody, request.body));
    const merchant = merchantOf(await deps.projects.get(link.projectId));
    return { status: 201, body: toCheckoutSession(session, publicUrl, merchant) };
  };

  return { public: read, start };
}
