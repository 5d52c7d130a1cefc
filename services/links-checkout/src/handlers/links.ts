import type { OperationHandler } from '@mmp/platform';
import { CreatePaymentLinkBody, UpdatePaymentLinkBody, type linksApi } from '@mmp/protocol';
import { listLinks } from '../store/links.js';
import type { Deps } from '../deps.js';
import { createLink, deleteLink, ownLink, updateLink } from '../use-cases/links.js';
import { ListPaymentLinksQuery, parseBody, parseQuery } from './schemas.js';
import { toPaymentLink } from './views.js';

type Api = typeof linksApi;

/** The merchant's payment links. */
export function linkHandlers(deps: Deps) {
  const { publicUrl } = deps.settings;

  const create: OperationHandler<Api['create']> = async (request, { actor }) => {
    const link = await createLink(deps, actor, parseBody(CreatePaymentLinkBody, request.body));
    return { status: 201, body: toPaymentLink(link, publicUrl, deps.now()) };
  };

  const list: OperationHandler<Api['list']> = async (request, { actor }) => {
    const query = parseQuery(ListPaymentLinksQuery, request.query);
    const now = deps.now();
    const { links, total } = await listLinks(deps.db, actor, query, now);
    return {
      status: 200,
      body: {
        data: links.map((link) => toPaymentLink(link, publicUrl, now)),
        has_more: (query.page - 1) * query.limit + links.length < total,
        meta: { limit: query.limit, total, page: query.page },
      },
    };
  };

  const retrieve: OperationHandler<Api['retrieve']> = async (request, { actor }) => ({
    status: 200,
    body: toPaymentLink(await ownLink(deps, request.params.id, actor), publicUrl, deps.now()),
  });

  const update: OperationHandler<Api['update']> = async (request, { actor }) => {
    const body = parseBody(UpdatePaymentLinkBody, request.body);
    const updated = await updateLink(deps, await ownLink(deps, request.params.id, actor), body);
    return { status: 200, body: toPaymentLink(updated, publicUrl, deps.now()) };
  };

  const remove: OperationHandler<Api['delete']> = async (request, { actor }) => {
    const link = await ownLink(deps, request.params.id, actor);
    await deleteLink(deps, link);
    return { status: 200, body: { id: link._id, deleted: true } };
  };

  return { create, list, retrieve, update, delete: remove };
}
