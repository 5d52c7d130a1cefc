import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuMs, idleCpuMsPerSecond, pssBytes, rssBytes, settle } from './proc.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** A process that burns a core for `busyMs`, then waits doing nothing. */
async function busyThenIdle(busyMs: number): Promise<number> {
  const child = spawn(process.execPath, [
    '-e',
    `const end = Date.now() + ${busyMs}; while (Date.now() < end); console.log('idle'); setInterval(() => {}, 1e6);`,
  ]);
  children.push(child);
  await once(child, 'spawn');
  return child.pid!;
}

describe('settle', () => {
  it('waits while a process of the system is still working, and returns once it is quiet', async () => {
    const pid = await busyThenIdle(1_500);
    const waited = await settle({ worker: pid });
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(cpuMs(pid)).toBeGreaterThanOrEqual(1_000);
  });

  it('returns after one quiet window when nothing is working', async () => {
    const pid = await busyThenIdle(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await settle({ worker: pid })).toBeLessThan(1_500);
  });

  it('gives up at its limit when the system never goes quiet', async () => {
    const pid = await busyThenIdle(60_000);
    const waited = await settle({ worker: pid }, 1_200);
    expect(waited).toBeGreaterThanOrEqual(1_200);
    expect(waited).toBeLessThan(3_000);
  });
});

describe('pssBytes', () => {
  it('gives a process its share of the pages it shares, no more than its RSS', async () => {
    const pid = await busyThenIdle(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pss = pssBytes(pid)!;
    expect(pss).toBeGreaterThan(1024 * 1024);
    expect(pss).toBeLessThanOrEqual(rssBytes(pid)!);
    expect(pssBytes(2 ** 22 + 12_345)).toBeUndefined();
  });
});

describe('idleCpuMsPerSecond', () => {
  it('tells a process that works from one that waits, per second of the window', async () => {
    const busy = await busyThenIdle(60_000);
    const quiet = await busyThenIdle(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const used = await idleCpuMsPerSecond({ busy, quiet }, 1_000);
    // A spinning process uses most of a core; a waiting one next to nothing (clock ticks are 10 ms).
    expect(used.busy).toBeGreaterThan(300);
    expect(used.quiet).toBeLessThan(100);
  });
});
