import { defineConfig } from 'vitest/config';

// Packages export their TypeScript source under the "source" condition, so tests run
// against source without a build step; production builds resolve ./dist.
const conditions = ['source', 'module', 'node', 'development|production'];

export function vitestConfig(
  overrides: {
    testTimeout?: number;
    include?: string[];
    setupFiles?: string[];
    globalSetup?: string[];
  } = {},
) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['source'] } },
    test: {
      environment: 'node',
      include: overrides.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 20_000,
      hookTimeout: 30_000,
      setupFiles: overrides.setupFiles ?? [],
      globalSetup: overrides.globalSetup ?? [],
      pool: 'forks',
    },
  });
}
