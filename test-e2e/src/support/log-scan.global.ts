import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every key and secret the system issues: merchant API keys, webhook and settlement signing
 * secrets, provider API keys and admin tokens. Written out here, apart from the logger's own
 * redaction pattern, so that a gap in the redaction is caught rather than shared.
 */
export const SECRET_SHAPE = /\b(?:svc_(?:test|live)_(?:sk|pk)_|whsec_|ssec_|sk_|adm_)[A-Za-z0-9]{24,}/;

/**
 * Every line of the log files in `dir` that holds a key or a secret, as `file:line: text`
 * with each such value cut short, so the report does not leak it again.
 */
export function scanLogs(dir: string): { lines: number; leaks: string[] } {
  let lines = 0;
  const leaks: string[] = [];
  for (const file of readdirSync(dir)) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        lines++;
        if (!SECRET_SHAPE.test(line)) return;
        const masked = line.replace(new RegExp(SECRET_SHAPE, 'g'), (secret) => `${secret.slice(0, 12)}…`);
        leaks.push(`${file}:${index + 1}: ${masked.slice(0, 300)}`);
      });
  }
  return { lines, leaks };
}

/**
 * The e2e run's global setup. Every system started by `startSystem` writes the debug logs of
 * all its services, in-process and child processes alike, under one folder; when the run
 * ends, every line is scanned, and a line holding a key or a secret fails the run.
 */
export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'mmp-e2e-logs-'));
  process.env.MMP_E2E_LOG_DIR = dir;
  return () => {
    const { lines, leaks } = scanLogs(dir);
    rmSync(dir, { recursive: true, force: true });
    if (leaks.length === 0) {
      console.log(`service logs of the whole run: ${lines} lines, no key or secret in any`);
      return;
    }
    console.error(`service logs hold ${leaks.length} key(s) or secret(s):\n${leaks.slice(0, 20).join('\n')}`);
    // A throw here is only printed; the exit code is what makes the run fail.
    process.exitCode = 1;
  };
}
