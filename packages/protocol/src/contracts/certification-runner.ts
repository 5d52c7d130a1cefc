import { z } from 'zod';
import { eventsOf, httpOperationsOf } from '../bus/contract.js';
import { Channel, CertificationRunView, RunStatus } from '../provider/certification.js';

/** A portal route of certification: the provider (its key) or an admin acting for it. */
const portalRoute = httpOperationsOf({ service: 'certification-runner', actors: ['provider', 'admin'] });

/** Starting a run answers 202 with the run RUNNING, or refuses the rail, channel or case. */
const STARTS_A_RUN = {
  responses: { 202: CertificationRunView },
  errors: ['validation_error', 'resource_not_found', 'invalid_state'],
} as const;

/** Reading one run answers it whole, or 404 when the rail or run is not the provider's. */
const READS_A_RUN = { responses: { 200: CertificationRunView }, errors: ['resource_not_found'] } as const;

/** Certification runs in the provider portal (provider key `sk_…`), mirrored for admins. */
export const certificationApi = {
  start: portalRoute({
    name: 'runs.start',
    ...STARTS_A_RUN,
    summary:
      'Start a full certification run on a sandbox rail (TESTED or ACTIVE) for one of its channels: 202 with the run RUNNING; every case passing certifies the channel, a failed full run removes the badge; 409 while a run of the rail is still RUNNING',
  }),
  list: portalRoute({
    name: 'runs.list',
    responses: { 200: z.object({ data: z.array(CertificationRunView) }) },
    errors: ['resource_not_found'],
    summary: "A rail's certification runs, newest first",
  }),
  get: portalRoute({
    name: 'runs.get',
    ...READS_A_RUN,
    summary:
      'A certification run with each case: expected, observed, pass or fail, latency, exchanged messages',
  }),
  rerunCase: portalRoute({
    name: 'runs.rerun-case',
    ...STARTS_A_RUN,
    summary:
      "Re-run one case of a run's rail and channel as a new single-case run (202); it never awards or removes the badge",
  }),
  report: portalRoute({
    name: 'runs.report',
    ...READS_A_RUN,
    summary: 'The run as a JSON report (the CertificationRun schema), for a CI to gate on',
  }),
  junit: portalRoute({
    name: 'runs.junit',
    responses: { 200: z.string().describe('JUnit XML (application/xml)') },
    errors: ['resource_not_found'],
    summary:
      'The run as JUnit XML: one testsuite, one testcase per case, a failure with expected and observed for each failed case',
  }),
};

/** The run an event is about, and the provider and rail it certifies. */
const OF_RUN = { runId: z.string(), providerId: z.string(), railId: z.string() };

export const CaseFinishedData = z.object({
  ...OF_RUN,
  number: z.number().int(),
  status: z.enum(['PASSED', 'FAILED']),
  observed: z.string().nullable(),
  latencyMs: z.number().nullable(),
});
export type CaseFinishedData = z.infer<typeof CaseFinishedData>;

export const RunFinishedData = z.object({
  ...OF_RUN,
  channel: Channel,
  kind: z.enum(['full', 'single']),
  status: RunStatus,
  finishedAt: z.iso.datetime(),
});
export type RunFinishedData = z.infer<typeof RunFinishedData>;

/** The badge decision of one full run for one channel of a provider. */
export const ChannelBadgeData = z.object({
  providerId: z.string(),
  channel: Channel,
  runId: z.string(),
  railId: z.string(),
  /** When the run finished: a later decision wins over an earlier one, whatever arrives first. */
  decidedAt: z.iso.datetime(),
});
export type ChannelBadgeData = z.infer<typeof ChannelBadgeData>;

const runnerEvent = eventsOf('certification-runner');

export const certificationEvents = {
  caseFinished: runnerEvent({
    type: 'certification.case-finished',
    data: CaseFinishedData,
    consumers: [],
    summary: 'One case of a certification run finished (the portal follows runs by reading them)',
  }),
  runFinished: runnerEvent({
    type: 'certification.run-finished',
    data: RunFinishedData,
    consumers: [],
    summary: 'A certification run ended PASSED or FAILED',
  }),
  channelCertified: runnerEvent({
    type: 'certification.channel-certified',
    data: ChannelBadgeData,
    consumers: ['provider-router'],
    summary:
      'Every case of a full run passed: the channel carries the CERTIFIED badge (routing prefers it, live rails on it may activate)',
  }),
  channelUncertified: runnerEvent({
    type: 'certification.channel-uncertified',
    data: ChannelBadgeData,
    consumers: ['provider-router'],
    summary: 'A full run failed: the channel loses the CERTIFIED badge',
  }),
};
export const CHANNEL_BADGE_EVENTS = [
  certificationEvents.channelCertified,
  certificationEvents.channelUncertified,
] as const;
