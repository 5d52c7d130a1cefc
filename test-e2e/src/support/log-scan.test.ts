import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanLogs } from './log-scan.global.js';

describe('the scan of a run’s service logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mmp-log-scan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names each line holding a key or a secret, without repeating the secret', () => {
    const key = `svc_live_sk_${'a1B2'.repeat(8)}`;
    const webhookSecret = `whsec_${'Z9y8'.repeat(8)}`;
    writeFileSync(
      join(dir, 'e2e_1.log'),
      [
        '{"msg":"payment created","token":"pay_0123456789abcdef"}',
        `{"msg":"oops","authorization":"Bearer ${key}"}`,
        '{"msg":"redacted","key":"svc_test_sk_[REDACTED]","hint":"svc_test_sk_…wXyZ"}',
        `{"msg":"endpoint","secret":"${webhookSecret}","provider":"sk_${'Q'.repeat(32)}"}`,
      ].join('\n'),
    );
    const { lines, leaks } = scanLogs(dir);
    expect(lines).toBe(4);
    expect(leaks).toHaveLength(2);
    expect(leaks[0]).toMatch(/^e2e_1\.log:2: /);
    expect(leaks[1]).toMatch(/^e2e_1\.log:4: /);
    for (const secret of [key, webhookSecret, `sk_${'Q'.repeat(32)}`]) {
      expect(leaks.join('\n')).not.toContain(secret);
    }
  });
});
