import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS } from '@mmp/protocol';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type RunningSystem } from './support/system.js';
import { payOnHostedPage } from './support/shopper.js';

/**
 * Issue 16's "done when": a newcomer runs the README's first-payment commands as written,
 * piped through `jq`, and reaches a completed payment with no error the README leaves
 * unexplained. The commands are the README's own, read from it, against a system of this
 * test (its address for the README's `127.0.0.1:3000`, its admin token for `.data/`'s).
 */
const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const run = promisify(execFile);
let system: RunningSystem;

/** The shell blocks of one README section, in order. */
function shellBlocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s.\S]*?)```/g)].map((match) => match[1]!);
}

/** A README block in bash as a reader's terminal runs it, failing on the first failed command. */
async function shell(script: string, env: Record<string, string> = {}) {
  // --norc: started over SSH (as CI may be), bash reads the system bashrc even for -c, and
  // a bashrc written for interactive shells trips over -u; a reader's terminal has its own.
  const { stdout, stderr } = await run('bash', ['--norc', '-euo', 'pipefail', '-c', script], {
    cwd: root,
    env: { ...process.env, MMP_URL: system.baseUrl, ADMIN_TOKEN: system.adminToken, ...env },
  });
  return { stdout, stderr };
}

const againstSystem = (block: string) => block.replaceAll('http://127.0.0.1:3000', system.baseUrl);

beforeAll(async () => {
  system = await startSystem();
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe("the README's first payment", () => {
  it('runs as written: a project created with piped --json, a payment, paid with the sandbox number, read back COMPLETED', async () => {
    const [create, read] = shellBlocks('Take a first payment');
    expect(create).toContain('pnpm -s mmp project create --name Shop --json');
    // The block sets KEY for the next one: print it after the block's own output.
    const created = await shell(`${againstSystem(create!)}\nprintf '\\n%s\\n' "$KEY"`);
    // Nothing on stderr: no banner, warning or error the README would have to explain.
    expect(created.stderr).toBe('');
    const lines = created.stdout.trimEnd().split('\n');
    const key = lines.pop()!;
    expect(key).toContain('_test_');
    const payment = JSON.parse(lines.join('\n')) as { token: string; paymentUrl: string; status: string };
    expect(payment).toMatchObject({ token: expect.stringMatching(/^pay_/), status: 'PENDING' });

    // The README's number on the hosted page's route, as the page sends it.
    const phone = /pay with\s+`([^`]+)`/.exec(readme)![1]!.replaceAll(' ', '');
    await payOnHostedPage(system.baseUrl, payment, phone);

    const retrieve = againstSystem(read!).replace('pay_…', payment.token);
    await eventually(async () => {
      const { stdout, stderr } = await shell(retrieve, { KEY: key });
      expect(stderr).toBe('');
      return (JSON.parse(stdout) as { status: string }).status === 'COMPLETED';
    }, 20_000);
  }, 90_000);

  it('lists every sandbox number with the outcome it gives', () => {
    for (const { phone, outcome } of SANDBOX_NUMBERS) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${phone}\``));
      expect(row, phone).toBeDefined();
      expect(row, phone).toContain(outcome === 'success' ? 'COMPLETED' : `\`${outcome}\``);
    }
  });
});
