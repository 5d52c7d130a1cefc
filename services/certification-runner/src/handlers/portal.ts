import type { OperationHandler } from '@mmp/platform';
import { appError, routerForCertification, type ActorOf, type certificationApi } from '@mmp/protocol';
import { junitReport } from '../domain/junit.js';
import { runView, type Run } from '../domain/run.js';
import { casesOfRun, runsOfRail } from '../store/runs.js';
import type { RunnerDeps } from '../use-cases/deps.js';
import { ownRun, rerunCase, startRun } from '../use-cases/start-run.js';

type Api = typeof certificationApi;

/** A provider acts for itself; an admin (the `mmp` command) names the provider in the path. */
function actingProviderId(actor: ActorOf<'provider' | 'admin'>, params: Record<string, string>): string {
  if (actor.kind === 'provider') return actor.providerId;
  if (params.providerId) return params.providerId;
  throw appError('insufficient_permissions', 'An admin names the provider in the path.');
}

/** Certification in the provider portal (a provider's key, or an admin for it). */
export function portalHandlers(deps: RunnerDeps): { [K in keyof Api]: OperationHandler<Api[K]> } {
  const view = async (run: Run) => runView(run, await casesOfRun(deps.db, run._id));
  const runOf = (request: { params: Record<string, string> }, actor: ActorOf<'provider' | 'admin'>) =>
    ownRun(deps, actingProviderId(actor, request.params), request.params.runId);
  return {
    start: async (request, { actor }) => {
      const providerId = actingProviderId(actor, request.params);
      const run = await startRun(deps, providerId, request.params.railId ?? '', request.body);
      return { status: 202, body: await view(run) };
    },
    list: async (request, { actor }) => {
      const providerId = actingProviderId(actor, request.params);
      const railId = request.params.railId ?? '';
      // An unknown rail, or another provider's, is a 404 like everywhere in the portal.
      await deps.bus.request(routerForCertification.target, { providerId, railId });
      const runs = (await runsOfRail(deps.db, railId)).filter((run) => run.providerId === providerId);
      return { status: 200, body: { data: await Promise.all(runs.map(view)) } };
    },
    get: async (request, { actor }) => ({ status: 200, body: await view(await runOf(request, actor)) }),
    rerunCase: async (request, { actor }) => {
      const run = await rerunCase(deps, await runOf(request, actor), request.params.case);
      return { status: 202, body: await view(run) };
    },
    report: async (request, { actor }) => ({ status: 200, body: await view(await runOf(request, actor)) }),
    junit: async (request, { actor }) => ({
      status: 200,
      body: junitReport(await view(await runOf(request, actor))),
      contentType: 'application/xml; charset=utf-8',
    }),
  };
}
