import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');

/** Field names the specification spells otherwise; every other JSON key the CLI prints is camelCase. */
const SPEC_NAMED = new Set(['has_more']);

/** Keys of `value`, at any depth, that are neither camelCase nor named so by the specification. */
export function notCamelCase(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(notCamelCase);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(/^[a-z][A-Za-z0-9]*$/.test(key) || SPEC_NAMED.has(key) ? [] : [key]),
    // Provider mappings are the provider's own JSON paths, not ours to name.
    ...(key === 'mapping' ? [] : notCamelCase(inner)),
  ]);
}

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
    const parsed: unknown = JSON.parse(result.stdout);
    const odd = notCamelCase(parsed);
    if (odd.length > 0)
      throw new Error(`mmp ${args.join(' ')} printed non-camelCase keys: ${odd.join(', ')}`);
    return parsed;
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

/** `mmp <group> <command> --project <projectId> <options>`: a command on one project's keys or webhooks. */
export function projectArgs(
  group: 'keys' | 'webhook',
  projectId: string,
  command: string,
  ...options: string[]
) {
  return [group, command, '--project', projectId, ...options];
}

/** `mmp rails create` options of a pull rail serving MTN MoMo in CM (XAF). */
export const PULL_RAIL_ARGS = [
  ...['--transport', 'pull', '--networks', 'MTN_MOMO'],
  ...['--countries', 'CM', '--currencies', 'XAF'],
];
