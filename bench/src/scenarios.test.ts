import { describe, expect, it } from 'vitest';
import { createPaymentScenario } from './scenarios.js';

const referencesOf = (requests: number) => {
  const scenario = createPaymentScenario('http://127.0.0.1:1', 'sk_test');
  return Array.from({ length: requests }, () => JSON.parse(String(scenario.nextRequest().body)).reference);
};

describe('the create scenario', () => {
  it('never repeats a reference, within one scenario or across the scenarios of one run', () => {
    // bench:scale makes one at every size, in the same project: a repeated reference is a 409.
    const first = referencesOf(1_000);
    const second = referencesOf(1_000);
    expect(new Set([...first, ...second]).size).toBe(2_000);
  });
});
