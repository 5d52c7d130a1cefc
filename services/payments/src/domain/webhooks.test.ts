import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, nextRetryDelay, parseRetrySchedule } from './webhooks.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('the merchant webhook retry schedule', () => {
  it('starts within a minute, backs off, and keeps trying for about 3 days', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS[0]).toBe(MINUTE);
    for (let i = 1; i < DEFAULT_RETRY_SCHEDULE_MS.length; i += 1) {
      expect(DEFAULT_RETRY_SCHEDULE_MS[i]).toBeGreaterThan(DEFAULT_RETRY_SCHEDULE_MS[i - 1]!);
    }
    // Early retries grow fast (a blip heals in minutes); no single wait exceeds 30 hours.
    expect(DEFAULT_RETRY_SCHEDULE_MS[3]! / DEFAULT_RETRY_SCHEDULE_MS[0]!).toBeGreaterThanOrEqual(100);
    expect(Math.max(...DEFAULT_RETRY_SCHEDULE_MS)).toBeLessThanOrEqual(30 * 60 * MINUTE);
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThan(2.9 * DAY);
    expect(total).toBeLessThanOrEqual(3 * DAY);
  });

  it('jitters each delay by at most 20 % either way', () => {
    const schedule = DEFAULT_RETRY_SCHEDULE_MS;
    expect(nextRetryDelay(schedule, 0, () => 0)).toBe(0.8 * MINUTE);
    expect(nextRetryDelay(schedule, 0, () => 0.5)).toBe(MINUTE);
    expect(nextRetryDelay(schedule, 0, () => 0.999_999)).toBeCloseTo(1.2 * MINUTE, -1);
    for (const [index, base] of schedule.entries()) {
      const delays = Array.from({ length: 200 }, () => nextRetryDelay(schedule, index)!);
      for (const delay of delays) {
        expect(delay).toBeGreaterThanOrEqual(0.8 * base);
        expect(delay).toBeLessThanOrEqual(1.2 * base);
      }
      // Deliveries that failed together do not all come back at the same instant.
      expect(new Set(delays).size).toBeGreaterThan(100);
    }
  });

  it('gives up once the schedule is spent', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_SCHEDULE_MS.length)).toBeNull();
    expect(nextRetryDelay([100, 200], 1, () => 0.5)).toBe(200);
    expect(nextRetryDelay([100, 200], 2, () => 0.5)).toBeNull();
  });

  it('reads a configured schedule as comma-separated milliseconds', () => {
    expect(parseRetrySchedule('100, 200,,300 ')).toEqual([100, 200, 300]);
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE_MS.join(','))).toEqual(DEFAULT_RETRY_SCHEDULE_MS);
  });
});
