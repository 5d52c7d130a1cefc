import { startSystem } from '@mmp/test-e2e/system';
import { startBaseline } from './baseline.js';

/**
 * The measured side, in its own process so the load generator does not share its event
 * loop: the whole system (every service in-process, as in the end-to-end tests) and the
 * bare Fastify baseline. Tells the parent where they listen and the keys to use, then
 * stops everything when the parent says so or goes away.
 */
export type TargetReady = {
  kind: 'ready';
  baseUrl: string;
  baselineUrl: string;
  testSecretKey: string;
  provider: { id: string; signingSecret: string } | { error: string };
};
export type TargetFailed = { kind: 'failed'; error: string };

// Limits sized for a benchmark: the point is to measure the path, not the rate limiter.
const UNLIMITED = String(1_000_000_000);

function send(message: TargetReady | TargetFailed): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const baseline = await startBaseline();
  const system = await startSystem({
    env: { LOG_LEVEL: 'silent', RATE_LIMIT_KEY_MAX: UNLIMITED, RATE_LIMIT_IP_MAX: UNLIMITED },
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await system.stop().catch((error: unknown) => console.error('stopping the system:', error));
    await baseline.close();
    process.exit(0);
  };
  process.on('message', (message) => message === 'stop' && void stop());
  process.on('disconnect', () => void stop());

  const project = await system.createProject('Bench Shop');
  const provider = await system
    .admin<{ id: string; signingSecret: string }>('POST', '/v1/admin/providers', { name: 'Bench Provider' })
    .then(({ id, signingSecret }) => ({ id, signingSecret }))
    .catch((error: unknown) => ({ error: String(error) }));
  send({
    kind: 'ready',
    baseUrl: system.baseUrl,
    baselineUrl: baseline.url,
    testSecretKey: project.testSecretKey,
    provider,
  });
}

main().catch((error: unknown) => {
  send({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
