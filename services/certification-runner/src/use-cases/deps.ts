import type { BusClient, Logger, OutboundHttp, Outbox } from '@mmp/platform';
import type { FaultRelay } from '../relay/fault-relay.js';
import type { RunsStore } from '../store/runs.js';

export type RunnerConfig = {
  /** The system's public API (ending in /v1): the real settlement ingestion and pull routes. */
  apiBase: string;
  /** One direct call to an adapter (cases 8, 10, 12). */
  callTimeoutMs: number;
  /** How long an adapter has to settle a certification order. */
  settlementWaitMs: number;
  /** How long delivery may take to give up on a faulty endpoint (cases 9 to 11: its attempts and timeouts). */
  deliveryWaitMs: number;
  /** After a repeated key was acked: how long a second execution has to show as a second settlement. */
  duplicateGraceMs: number;
  pollMs: number;
};

/** What certification-runner's use-cases work with. */
export type RunnerDeps = {
  db: RunsStore;
  outbox: Outbox;
  bus: BusClient;
  /** Calls to adapters' endpoints and to the system's public API, under the outbound rules. */
  http: OutboundHttp;
  relay: FaultRelay;
  config: RunnerConfig;
  log: Logger;
};
