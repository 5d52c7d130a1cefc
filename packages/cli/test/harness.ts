import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { connectNats, createLogger, startService, type ServedOperation } from '@mmp/platform';
import { serveStandIn, type TestSystem } from '@mmp/platform/testing';
import { createGatewayService, type forwardedRoutes } from '@mmp/gateway';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');

/**
 * How a user starts the CLI. `pnpm -s mmp` (the root script) and `pnpm exec mmp` (the
 * installed bin) run the node command; a test going through each once proves them, the rest
 * save pnpm's start-up.
 */
const STARTS = {
  node: [process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/cli/src/main.ts']],
  script: ['pnpm', ['--silent', 'mmp']],
  bin: ['pnpm', ['exec', 'mmp']],
} satisfies Record<string, [string, string[]]>;

/** `mmp <args>` run in the repository's root: its exit code and what it printed, success or not. */
export async function runMmp(args: string[], env: Record<string, string>, via: keyof typeof STARTS = 'node') {
  const [command, prefix] = STARTS[via];
  try {
    const { stdout, stderr } = await run(command, [...prefix, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * The real gateway (admin routes, keys, guard) with only `routes`, listening on a free port,
 * and a stand-in payments service answering them with `operations`.
 */
export async function startGatewayOnStandIn(
  system: TestSystem,
  adminToken: string,
  routes: typeof forwardedRoutes,
  operations: ServedOperation[],
): Promise<{ url: string; stop(): Promise<void> }> {
  let url = '';
  const gateway = await startService(
    createGatewayService({
      routes,
      expose: async (app) => {
        await app.listen({ host: '127.0.0.1', port: 0 });
        url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      },
    }),
    { ...system.env, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent' },
  );
  const log = createLogger({ service: 'fake-payments', level: 'silent' });
  const nc = await connectNats({ url: system.env.NATS_URL!, name: 'fake-payments', log });
  const payments = await serveStandIn(nc, system.naming, 'payments', operations);
  return {
    url,
    async stop() {
      await payments.stop();
      await nc.drain();
      await gateway.stop();
    },
  };
}
