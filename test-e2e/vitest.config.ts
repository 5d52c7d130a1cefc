import { vitestConfig } from '../vitest.shared.ts';

export default vitestConfig({
  testTimeout: 60_000,
  // Keeps every service log of the run and fails it if any holds a key or a secret.
  globalSetup: ['src/support/log-scan.global.ts'],
});
