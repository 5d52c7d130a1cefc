import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');

export type MmpResult = { code: number; stdout: string; stderr: string };

/**
 * The `mmp` admin command run as a user runs it, a child process against a running system
 * (its gateway and admin token), for a test file whose system starts in `beforeAll`.
 */
export function mmpAgainst(system: () => { baseUrl: string; adminToken: string }) {
  /** Its exit code and what it printed, success or not. */
  async function mmp(args: string[], env: Record<string, string> = {}): Promise<MmpResult> {
    const { baseUrl, adminToken } = system();
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', 'packages/cli/src/main.ts', ...args],
        { cwd: root, env: { ...process.env, MMP_URL: baseUrl, ADMIN_TOKEN: adminToken, ...env } },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  /** `mmp <args> --json`, parsed; a failure throws with what the command said. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- outputs are asserted field by field
  async function mmpJson(args: string[], env: Record<string, string> = {}): Promise<any> {
    const result = await mmp([...args, '--json'], env);
    if (result.code !== 0)
      throw new Error(`mmp ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
    return JSON.parse(result.stdout);
  }

  return { mmp, mmpJson };
}

/**
 * `mmp rails create` of a sandbox webhook rail at `endpoint` serving Orange Money in CM
 * (XAF), at priority 0: ahead of the sandbox provider's rail, so it gets the sandbox orders.
 */
export function webhookRailArgs(endpoint: string, providerKey: string): string[] {
  return [
    ...['rails', 'create', '--provider-key', providerKey, '--transport', 'webhook'],
    ...['--endpoint', endpoint, '--networks', 'ORANGE_MONEY', '--countries', 'CM'],
    ...['--currencies', 'XAF', '--priority', '0'],
  ];
}
