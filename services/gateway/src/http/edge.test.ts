import { describe, expect, it } from 'vitest';
import { jsonDepth, MAX_JSON_DEPTH } from './edge.js';

describe('jsonDepth', () => {
  it('counts nested arrays and objects, not brackets inside strings', () => {
    expect(jsonDepth('{"amount": 5000}')).toBe(1);
    expect(jsonDepth('{"a": [{"b": []}]}')).toBe(4);
    expect(jsonDepth('{"note": "[[[{{{"}')).toBe(1);
    expect(jsonDepth('{"quote": "a \\" [[[ b"}')).toBe(1);
    expect(jsonDepth('"just a string"')).toBe(0);
  });

  it('reads a body far deeper than the limit without recursion', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(jsonDepth(deep)).toBe(100_000);
    expect(jsonDepth(deep)).toBeGreaterThan(MAX_JSON_DEPTH);
  });
});
