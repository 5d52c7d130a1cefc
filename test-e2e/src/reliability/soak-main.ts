import { startChaosSystem } from './chaos.js';
import { SOAK_ENV, catchUpMs, formatSoakTable, holdLoad, measureRate, soakVerdict } from './soak.js';

/**
 * `pnpm soak`: every service as its own process on a private nats-server; paid payments at
 * SOAK_SHARE (70 %) of the rate the whole path was just measured to sustain, for
 * SOAK_SECONDS (600), a window of figures a minute (or a fifth of a shorter run).
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const MEASURE_SECONDS = Number(process.env.SOAK_MEASURE_SECONDS ?? 15);
const SHARE = Number(process.env.SOAK_SHARE ?? 0.7);
const WINDOW_MS = Math.min(60, Math.max(5, SECONDS / 5)) * 1000;

console.log(`soak: starting every service as its own process on a private nats-server…`);
const chaos = await startChaosSystem(SOAK_ENV);
try {
  const rate = await measureRate(chaos, MEASURE_SECONDS);
  const target = rate * SHARE;
  console.log(
    `soak: measured ${rate.toFixed(1)} paid payments/s (${MEASURE_SECONDS} s of load, until every consumer caught up); holding ${target.toFixed(1)}/s (${SHARE * 100} %) for ${SECONDS} s`,
  );
  const windows = await holdLoad(chaos, {
    rate: target,
    seconds: SECONDS,
    windowMs: WINDOW_MS,
    onWindow: (w, inFlight) =>
      console.log(
        `  ${String(w.at).padStart(4)} s  paid ${w.requests}  failed ${w.failed}  p99 ${w.p99Ms} ms  in flight ${inFlight}  outbox ≤${w.outbox}  lag ≤${w.lagS.toFixed(2)} s ${w.lagging}  RSS ${Object.values(w.rssMiB).reduce((a, b) => a + b, 0)} MiB`,
      ),
  });
  const caughtUp = await catchUpMs(chaos, 600_000);
  const verdict = soakVerdict(windows);
  console.log(
    `\nSoak: ${target.toFixed(1)} paid payments/s (${SHARE * 100} % of a measured ${rate.toFixed(1)}/s)`,
  );
  console.log(formatSoakTable(windows));
  console.log(
    `${verdict.line}; every consumer caught up ${caughtUp === null ? 'NOT within 10 minutes' : `${(caughtUp / 1000).toFixed(1)} s`} after the load`,
  );
  process.exitCode = verdict.held ? 0 : 1;
} finally {
  await chaos.stop();
}
// The verdict is the exit code; timers a sample's client left behind (five were seen after a
// 10-minute run, every process already gone) must not keep `pnpm soak` from returning it.
process.exit();
