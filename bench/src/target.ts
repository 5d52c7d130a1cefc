import { startSystem } from '@mmp/test-e2e/system';
import { serveChild } from './processes.js';

export type TargetReady = {
  baseUrl: string;
  testSecretKey: string;
  provider: { id: string; signingSecret: string } | { error: string };
};

// Limits sized for a benchmark: the point is to measure the path, not the rate limiter.
const UNLIMITED = String(1_000_000_000);

/**
 * The measured side, in its own process so the load generator does not share its event
 * loop: the whole system (every service in-process, as in the end-to-end tests). Reports
 * where it listens and the keys to use.
 */
serveChild<TargetReady>(async () => {
  const system = await startSystem({
    env: { LOG_LEVEL: 'silent', RATE_LIMIT_KEY_MAX: UNLIMITED, RATE_LIMIT_IP_MAX: UNLIMITED },
  });
  try {
    const project = await system.createProject('Bench Shop');
    const provider = await system
      .admin<{ id: string; signingSecret: string }>('POST', '/v1/admin/providers', { name: 'Bench Provider' })
      .then(({ id, signingSecret }) => ({ id, signingSecret }))
      .catch((error: unknown) => ({ error: String(error) }));
    return {
      ready: { baseUrl: system.baseUrl, testSecretKey: project.testSecretKey, provider },
      stop: () => system.stop(),
    };
  } catch (error) {
    await system.stop();
    throw error;
  }
});
