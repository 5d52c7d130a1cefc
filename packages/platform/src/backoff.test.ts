import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base, caps, and adds at most the jitter share', () => {
    const none = () => 0;
    const most = () => 1;
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, { baseMs: 1000 }, none))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(backoffDelay(10, { baseMs: 1000, maxMs: 60_000 }, none)).toBe(60_000);
    expect(backoffDelay(1, { baseMs: 1000, jitter: 0.2 }, most)).toBe(2400);
  });
});
