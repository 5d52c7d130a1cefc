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

  it('treats empty strings as unset', () => {
    expect(parseEnv(BaseEnv, { MONGO_URL: '' }).MONGO_URL).toBeUndefined();
  });
});
