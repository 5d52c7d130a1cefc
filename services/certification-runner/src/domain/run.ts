import {
  certificationCasesFor,
  type CaseStatus,
  type CertificationCaseResult,
  type CertificationRunView,
  type Channel,
  type RunStatus,
} from '@mmp/protocol';

export type RunKind = 'full' | 'single';

/** A certification run; its finished cases are stored apart, one document each. */
export type Run = {
  /** `crun_…` */
  _id: string;
  providerId: string;
  railId: string;
  transport: 'webhook' | 'pull';
  channel: Channel;
  kind: RunKind;
  caseNumbers: number[];
  status: RunStatus;
  badge: 'CERTIFIED' | 'UNCERTIFIED' | null;
  /** Set while RUNNING only, under a unique index: one running run per rail. */
  runningRailId?: string;
  startedAt: string;
  finishedAt: string | null;
};

/** A finished case of a run. */
export type CaseRecord = CertificationCaseResult & { _id: string; runId: string };

/** What a case found out; the runner adds the timing. */
export type CaseOutcome = Pick<CertificationCaseResult, 'observed' | 'exchanges'> & { passed: boolean };

/** The cases a full run has: 12, or 17 when the rail supports payouts. */
export function fullRunCases(supportsPayout: boolean): number[] {
  return certificationCasesFor(supportsPayout).map((entry) => entry.number);
}

export function caseDefinition(number: number): { number: number; name: string; expected: string } {
  const entry = certificationCasesFor(true).find((candidate) => candidate.number === number);
  if (!entry) throw new RangeError(`no certification case ${number}`);
  return entry;
}

export function caseRecordId(runId: string, number: number): string {
  return `${runId}:${number}`;
}

/** The run's end: PASSED when every case passed. */
export function runOutcome(results: readonly Pick<CertificationCaseResult, 'status'>[]): RunStatus {
  return results.every((result) => result.status === 'PASSED') ? 'PASSED' : 'FAILED';
}

/** A full run decides the channel's badge either way; a single-case run never does. */
export function badgeAfter(kind: RunKind, status: RunStatus): Run['badge'] {
  if (kind !== 'full' || status === 'RUNNING') return null;
  return status === 'PASSED' ? 'CERTIFIED' : 'UNCERTIFIED';
}

function pendingCase(number: number, status: CaseStatus): CertificationCaseResult {
  return {
    ...caseDefinition(number),
    observed: null,
    status,
    latencyMs: null,
    exchanges: [],
    startedAt: null,
    finishedAt: null,
  };
}

/** The run as the portal shows it: cases not finished yet are RUNNING while the run is. */
export function runView(run: Run, finished: readonly CaseRecord[]): CertificationRunView {
  const byNumber = new Map(finished.map((record) => [record.number, record]));
  const cases = run.caseNumbers.map((number) => {
    const record = byNumber.get(number);
    if (!record) return pendingCase(number, run.status === 'RUNNING' ? 'RUNNING' : 'FAILED');
    const { _id: _omitId, runId: _omitRun, ...result } = record;
    return result;
  });
  const passed = cases.filter((result) => result.status === 'PASSED').length;
  return {
    id: run._id,
    providerId: run.providerId,
    railId: run.railId,
    transport: run.transport,
    channel: run.channel,
    kind: run.kind,
    status: run.status,
    summary: {
      total: cases.length,
      passed,
      failed: cases.filter((result) => result.status === 'FAILED').length,
    },
    badge: run.badge,
    cases,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.startedAt) : null,
  };
}
