import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateWorkflow } from '@action-validator/core';
import { REPO } from '../src/generate.js';
import { SERVICES } from '../src/services.js';

/**
 * The CI workflow for GitHub Actions: valid against SchemaStore's GitHub workflow schema
 * (carried by @action-validator/core), and running what the README and the issue say it runs.
 */
const source = readFileSync(join(REPO, '.github/workflows/ci.yml'), 'utf8');
type Step = { run?: string; uses?: string; with?: Record<string, string> };
type Job = { env?: Record<string, string>; steps: Step[]; strategy?: { matrix: { service: string[] } } };
const workflow = parse(source) as { jobs: Record<string, Job> };

describe('the CI workflow', () => {
  it('is valid for GitHub Actions', () => {
    expect(validateWorkflow(source).errors).toEqual([]);
  });

  it('a workflow with a misspelt key is refused by the same check', () => {
    const broken = source.replace('runs-on: ubuntu-24.04', 'run-on: ubuntu-24.04');
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  it('runs the README’s test command with JetStream and MongoDB, the store and end-to-end suites on MongoDB', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const command = /## Test it\n\n```sh\n(.+)\n```/.exec(readme)![1]!;
    const { env, steps } = workflow.jobs.test!;
    expect(steps.map((step) => step.run)).toContain(command);
    expect(env).toMatchObject({ MONGO_URL: expect.stringMatching(/^mongodb:\/\//), E2E_STORE: 'mongodb' });
    const nats = steps.find((step) => step.run?.includes('docker run'))!.run!;
    expect(nats).toMatch(/nats:[\d.]+ -js$/m);
    expect(env!.NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('builds the image of every service from deploy/Dockerfile', () => {
    const { strategy, steps } = workflow.jobs.images!;
    expect(strategy!.matrix.service).toEqual(SERVICES.map((service) => service.name));
    const build = steps.find((step) => step.uses?.startsWith('docker/build-push-action'))!;
    expect(build.with).toMatchObject({
      file: 'deploy/Dockerfile',
      'build-args': 'SERVICE=${{ matrix.service }}',
    });
  });
});
