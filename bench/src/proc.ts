import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says about the processes of the system under test: CPU time used so
 * far (user + system) and resident memory. CPU per operation is the difference of the
 * first over a scenario, summed over every process, divided by the requests it served.
 */

const CLOCK_TICKS_PER_SECOND =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time of `pid` in milliseconds, or undefined once it is gone. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function statusBytes(pid: number, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory of `pid` in bytes (VmRSS), or undefined once it is gone. */
export function rssBytes(pid: number): number | undefined {
  return statusBytes(pid, 'VmRSS');
}

/**
 * `pid`'s proportional share of memory (Pss in smaps_rollup): each page shared with other
 * processes (the node binary, shared libraries) counted as its share. The processes' sum
 * is what the machine spends on them; the sum of their RSS counts shared pages once each.
 */
export function pssBytes(pid: number): number | undefined {
  try {
    const match = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The most resident memory `pid` has had since it started (VmHWM). */
export function peakRssBytes(pid: number): number | undefined {
  return statusBytes(pid, 'VmHWM');
}

/** Every running nats-server: the system's broker is part of what each operation costs. */
export function natsServerPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'nats-server') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The system's processes whose CPU an operation costs: its services and nats-server. */
export function withNatsServer(servicePids: Record<string, number>): Record<string, number> {
  const nats = natsServerPids();
  return {
    ...servicePids,
    ...Object.fromEntries(nats.map((pid) => [nats.length > 1 ? `nats-server ${pid}` : 'nats-server', pid])),
  };
}

export type CpuSnapshot = Record<string, number>;

/** CPU milliseconds of each named process now. */
export function snapshotCpu(pids: Record<string, number>): CpuSnapshot {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid) ?? 0]));
}

/** CPU milliseconds each process used between two snapshots. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - (before[name] ?? 0)]));
}

/** Below this share of one core, the system counts as quiet: its own polling loops run, no backlog. */
const QUIET_SHARE_OF_A_CORE = 0.25;
const QUIET_WINDOW_MS = 500;

/**
 * Waits until the processes' summed CPU rate over half a second falls below a quarter of a
 * core (or `maxMs` passed): the events a scenario's requests caused have been handled by
 * their consumers. Returns how long it waited. Without it, one scenario's backlog was
 * measured as the next one's cost.
 */
export async function settle(pids: Record<string, number>, maxMs = 30_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = snapshotCpu(pids);
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const used = Object.values(cpuBetween(before, snapshotCpu(pids))).reduce((sum, ms) => sum + ms, 0);
    const waited = performance.now() - started;
    if (used < QUIET_WINDOW_MS * QUIET_SHARE_OF_A_CORE || waited >= maxMs) return waited;
  }
}

/**
 * CPU milliseconds each process uses a second while nothing is asked of it, over `windowMs`:
 * what its timers, polls and heartbeats cost, which a pod's CPU request pays for all day.
 */
export async function idleCpuMsPerSecond(
  pids: Record<string, number>,
  windowMs: number,
): Promise<Record<string, number>> {
  const before = snapshotCpu(pids);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const seconds = (performance.now() - started) / 1000;
  return Object.fromEntries(
    Object.entries(cpuBetween(before, snapshotCpu(pids))).map(([name, ms]) => [name, ms / seconds]),
  );
}
