import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseEnv, ConfigError, parseEnv } from './config.js';

describe('parseEnv', () => {
  it('applies defaults for an empty environment', () => {
    const env = parseEnv(BaseEnv, {});
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(env.NATS_PREFIX).toBe('');
    expect(env.OPS_PORT).toBe(9090);
  });

  it('names every bad variable in one message', () => {
    const schema = BaseEnv.extend({ ADMIN_TOKEN: z.string().min(16) });
    let error: unknown;
    try {
      parseEnv(schema, { OPS_PORT: 'abc', NATS_PREFIX: 'Has.Dots', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['OPS_PORT', 'NATS_PREFIX', 'LOG_LEVEL', 'ADMIN_TOKEN'])
      expect(problems).toContain(name);
  });

  it('says which variables are not set and which are not numbers, without repeating a value', () => {
    const schema = BaseEnv.extend({ SERVICE_SECRET_KEY: z.string().min(32) });
    const problems = () => {
      try {
        parseEnv(schema, { OPS_PORT: 'port-nine', REQUEST_TIMEOUT_MS: '5s' });
      } catch (caught) {
        return (caught as ConfigError).problems;
      }
      return [];
    };
    expect(problems()).toEqual([
      'OPS_PORT: not a number',
      'REQUEST_TIMEOUT_MS: not a number',
      'SERVICE_SECRET_KEY: required, not set (set it, or SERVICE_SECRET_KEY_FILE to a file holding it)',
    ]);
    expect(() => parseEnv(schema, { SERVICE_SECRET_KEY: 'short-secret' })).toThrow(
      /SERVICE_SECRET_KEY: .*32(?![\s\S]*short-secret)/,
    );
  });

  it('treats empty strings as unset', () => {
    expect(parseEnv(BaseEnv, { MONGO_URL: '' }).MONGO_URL).toBeUndefined();
  });

  it('reads X from the file X_FILE names, for a secret mounted outside the data folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmp-config-'));
    const file = join(dir, 'server-key');
    writeFileSync(file, 'k'.repeat(40) + '\n', { mode: 0o600 });
    const schema = BaseEnv.extend({ SERVICE_SECRET_KEY: z.string().min(32) });
    expect(parseEnv(schema, { SERVICE_SECRET_KEY_FILE: file }).SERVICE_SECRET_KEY).toBe('k'.repeat(40));
    expect(() => parseEnv(schema, { SERVICE_SECRET_KEY_FILE: join(dir, 'missing') })).toThrow(
      /SERVICE_SECRET_KEY_FILE: cannot read/,
    );
    expect(() =>
      parseEnv(schema, { SERVICE_SECRET_KEY_FILE: file, SERVICE_SECRET_KEY: 'x'.repeat(40) }),
    ).toThrow(/not both/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses, in production, to run without NATS credentials or with the loopback switch on', () => {
    const problems = (env: Record<string, string>) => {
      try {
        parseEnv(BaseEnv, { DEPLOYMENT_MODE: 'production', ...env });
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({}).join('\n')).toMatch(/NATS_USER: production needs NATS credentials/);
    expect(
      problems({ NATS_USER: 'payments', NATS_PASSWORD: 'pw', ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' }),
    ).toEqual(['ALLOW_HTTP_LOOPBACK_ENDPOINTS: a development switch, refused in production']);
    expect(problems({ NATS_USER: 'payments', NATS_PASSWORD: 'pw' })).toEqual([]);
    expect(problems({ NATS_CREDS: '/var/run/nats/payments.creds' })).toEqual([]);
    expect(parseEnv(BaseEnv, { ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' }).ALLOW_HTTP_LOOPBACK_ENDPOINTS).toBe(
      true,
    );
  });
});
