import { describe, expect, it } from 'vitest';
import { CHAOS_SERVICES } from './chaos.js';
import { soakVerdict, type Window } from './soak.js';

/** Ten one-minute windows in which every service has the RSS and heap `memory` gives it at `minute`. */
function run(memory: (minute: number) => { rss: number; heap: number }): Window[] {
  return Array.from({ length: 10 }, (_, i) => {
    const { rss, heap } = memory(i);
    return {
      at: (i + 1) * 60,
      requests: 1600,
      failed: 0,
      p99Ms: 150,
      rssMiB: Object.fromEntries(CHAOS_SERVICES.map((s) => [s, rss])),
      heapMiB: Object.fromEntries(CHAOS_SERVICES.map((s) => [s, heap])),
      outbox: 2,
      lagS: 0.2,
      lagging: 'payments-lifecycle',
    };
  });
}

describe('the soak verdict on memory', () => {
  it('holds when native memory fills in the first minutes and then stays, with the heap flat', () => {
    // As measured: RSS up 40 MiB over five minutes, then flat; the heap flat throughout.
    const verdict = soakVerdict(run((m) => ({ rss: 110 + Math.min(m, 5) * 8, heap: 24 })));
    expect(verdict.grew).toEqual([]);
    expect(verdict.held).toBe(true);
  });

  it('holds when a service hands memory back and takes it again up to its earlier peak', () => {
    // As measured (customers): 127 MiB, down to 100 in minute 7, back to 130 by minute 10.
    const rss = [120, 103, 114, 125, 126, 127, 100, 111, 116, 130];
    const verdict = soakVerdict(run((m) => ({ rss: rss[m]!, heap: 22 })));
    expect(verdict.grew).toEqual([]);
  });

  it('fails on RSS that keeps growing to the end', () => {
    const verdict = soakVerdict(run((m) => ({ rss: 110 + m * 6, heap: 24 })));
    expect(verdict.grew).toEqual(CHAOS_SERVICES);
    expect(verdict.line).toContain('memory GREW');
  });

  it('fails on a JS heap that grows, even while RSS hides it', () => {
    const verdict = soakVerdict(run((m) => ({ rss: 150, heap: 24 + m * 3 })));
    expect(verdict.grew).toEqual(CHAOS_SERVICES);
    expect(verdict.held).toBe(false);
  });
});
