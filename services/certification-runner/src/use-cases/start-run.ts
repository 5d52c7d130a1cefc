import { DuplicateKeyError } from '@mmp/platform';
import {
  CaseNumber,
  StartRunInput,
  appError,
  fieldErrors,
  randomBase62,
  routerForCertification,
  validationMessage,
  type CertificationTarget,
  type Channel,
} from '@mmp/protocol';
import { fullRunCases, type Run, type RunKind } from '../domain/run.js';
import { findRun, insertRun } from '../store/runs.js';
import { executeRun } from './execute-run.js';
import type { RunnerDeps } from './deps.js';

function invalid(error: Parameters<typeof fieldErrors>[0]) {
  const fields = fieldErrors(error);
  return appError('validation_error', validationMessage(fields), fields);
}

/** The rail under test, if certification may run on it now. */
async function railToCertify(
  deps: RunnerDeps,
  providerId: string,
  railId: string,
): Promise<CertificationTarget> {
  const target = await deps.bus.request(routerForCertification.target, { providerId, railId });
  if (target.rail.environment !== 'sandbox')
    throw appError(
      'invalid_state',
      'Certification runs on a sandbox rail only (it never sends an order to a live endpoint): certify the channel on a sandbox rail, then activate the live rail.',
    );
  if (target.rail.status === 'PENDING')
    throw appError('invalid_state', 'Test the rail first: certification runs on a TESTED or ACTIVE rail.');
  return target;
}

/** The channel of a run: the one asked for, else the rail's first network, country and currency. */
function channelOf(target: CertificationTarget, input: StartRunInput): Channel {
  const { rail } = target;
  const channel = {
    network: input.network ?? rail.networks[0]!,
    country: input.country ?? rail.countries[0]!,
    currency: input.currency ?? (rail.currencies[0] as Channel['currency']),
  };
  const fields = [
    !rail.networks.includes(channel.network) && {
      field: 'network',
      message: 'the rail does not serve this network',
    },
    !rail.countries.includes(channel.country) && {
      field: 'country',
      message: 'the rail does not serve this country',
    },
    !rail.currencies.includes(channel.currency) && {
      field: 'currency',
      message: 'the rail does not serve this currency',
    },
  ].filter((field) => field !== false);
  if (fields.length) throw appError('validation_error', validationMessage(fields), fields);
  return channel;
}

/**
 * A new RUNNING run, answered at once; its cases run in the background. One run per rail at
 * a time (a unique index on the running rail), so two runs never decide a badge together.
 */
async function launch(
  deps: RunnerDeps,
  target: CertificationTarget,
  channel: Channel,
  kind: RunKind,
  caseNumbers: number[],
): Promise<Run> {
  const run: Run = {
    _id: `crun_${randomBase62(20)}`,
    providerId: target.rail.providerId,
    railId: target.rail.railId,
    transport: target.rail.transport,
    channel,
    kind,
    caseNumbers,
    status: 'RUNNING',
    badge: null,
    runningRailId: target.rail.railId,
    startedAt: new Date().toISOString(),
    finishedAt: null,
  };
  try {
    await insertRun(deps.db, run);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    throw appError(
      'invalid_state',
      'A certification run of this rail is still RUNNING; follow it, then start another.',
    );
  }
  void executeRun(deps, run, target).catch((error: unknown) =>
    deps.log.error({ runId: run._id, err: error }, 'certification run stopped; the stale-run sweep ends it'),
  );
  return run;
}

/** POST …/rails/:railId/certification-runs: a full run of every case. */
export async function startRun(
  deps: RunnerDeps,
  providerId: string,
  railId: string,
  body: unknown,
): Promise<Run> {
  const input = StartRunInput.safeParse(body ?? {});
  if (!input.success) throw invalid(input.error);
  const target = await railToCertify(deps, providerId, railId);
  const cases = fullRunCases(target.rail.supportsPayout);
  return launch(deps, target, channelOf(target, input.data), 'full', cases);
}

/** A run of the provider; another provider's run is not found. */
export async function ownRun(deps: RunnerDeps, providerId: string, runId: string | undefined): Promise<Run> {
  const run = runId ? await findRun(deps.db, runId) : null;
  if (!run || run.providerId !== providerId)
    throw appError('resource_not_found', 'Certification run not found.');
  return run;
}

/** Re-runs one case of a run's rail and channel as a single-case run, which never decides the badge. */
export async function rerunCase(deps: RunnerDeps, run: Run, rawCase: string | undefined): Promise<Run> {
  const parsed = CaseNumber.safeParse(rawCase);
  if (!parsed.success) throw invalid(parsed.error);
  const target = await railToCertify(deps, run.providerId, run.railId);
  const cases = fullRunCases(target.rail.supportsPayout);
  if (!cases.includes(parsed.data))
    throw appError('validation_error', `Case ${parsed.data} is not part of this rail's certification.`, [
      { field: 'case', message: `must be one of ${cases.join(', ')}` },
    ]);
  return launch(deps, target, run.channel, 'single', [parsed.data]);
}
