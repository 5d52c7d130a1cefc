import { describe, expect, it } from 'vitest';
import { exchange, redactText } from './redact.js';
import { junitReport } from './junit.js';
import { badgeAfter, runOutcome, runView, type CaseRecord, type Run } from './run.js';

const run: Run = {
  _id: 'crun_1',
  providerId: 'prv_1',
  railId: 'rail_1',
  transport: 'webhook',
  channel: { network: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' },
  kind: 'full',
  caseNumbers: [1, 12],
  status: 'RUNNING',
  badge: null,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
};

const finished = (number: number, status: 'PASSED' | 'FAILED', observed = 'HTTP 200'): CaseRecord => ({
  _id: `crun_1:${number}`,
  runId: 'crun_1',
  number,
  name: `case ${number}`,
  expected: 'something <precise> & "quoted"',
  observed,
  status,
  latencyMs: 12,
  exchanges: [],
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
});

describe('a run', () => {
  it('shows unfinished cases as RUNNING while it runs, and counts what finished', () => {
    const view = runView(run, [finished(12, 'PASSED')]);
    expect(view.cases.map((result) => [result.number, result.status])).toEqual([
      [1, 'RUNNING'],
      [12, 'PASSED'],
    ]);
    expect(view.summary).toEqual({ total: 2, passed: 1, failed: 0 });
  });

  it('passes only when every case passed; only a full run decides the badge, both ways', () => {
    expect(runOutcome([{ status: 'PASSED' }, { status: 'PASSED' }])).toBe('PASSED');
    expect(runOutcome([{ status: 'PASSED' }, { status: 'FAILED' }])).toBe('FAILED');
    expect(badgeAfter('full', 'PASSED')).toBe('CERTIFIED');
    expect(badgeAfter('full', 'FAILED')).toBe('UNCERTIFIED');
    expect(badgeAfter('single', 'PASSED')).toBeNull();
    expect(badgeAfter('single', 'FAILED')).toBeNull();
  });
});

describe('evidence', () => {
  it('never shows a secret: signatures, authorization and key-shaped values are redacted', () => {
    const message = exchange(
      'call',
      {
        method: 'POST',
        url: 'https://adapter.example/?key=sk_abcDEF123',
        headers: {
          'X-Service-Signature': 't=1,v1=abc',
          authorization: 'Bearer sk_x',
          'content-type': 'application/json',
        },
        body: '{"secret":"whsec_0123456789abcdefghij","note":"ssec_zzz svc_test_sk_abc"}',
      },
      { status: 200, headers: { 'set-cookie': 'a=b' }, body: 'echo whsec_abc' },
    );
    const text = JSON.stringify(message);
    for (const secret of [
      'sk_abcDEF123',
      't=1,v1=abc',
      'whsec_0123',
      'ssec_zzz',
      'svc_test_sk_abc',
      'a=b',
      'whsec_abc',
    ])
      expect(text).not.toContain(secret);
    expect(message.request.headers['content-type']).toBe('application/json');
    expect(redactText('pexec_abc stays')).toBe('pexec_abc stays');
  });
});

describe('the JUnit report', () => {
  it('has one testcase per case and a failure, escaped, for each failed case', () => {
    const view = runView({ ...run, status: 'FAILED', finishedAt: '2026-01-01T00:00:02.000Z' }, [
      finished(1, 'FAILED', 'HTTP 500 <html>'),
      finished(12, 'PASSED'),
    ]);
    const xml = junitReport(view);
    expect(xml).toContain('tests="2" failures="1"');
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('HTTP 500 &lt;html&gt;');
    expect(xml).toContain('&lt;precise&gt; &amp; &quot;quoted&quot;');
  });
});
