import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type CliConfig = { url: string; adminToken?: string; providerKey?: string; secretKey?: string };

/**
 * MMP_URL, ADMIN_TOKEN, MMP_PROVIDER_KEY and MMP_SECRET_KEY (a merchant's sk_ key) from the
 * environment; without ADMIN_TOKEN, the token that
 * `pnpm start` generated into the data folder, so a newcomer needs no setup.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CliConfig {
  const url = (env.MMP_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
  let adminToken = env.ADMIN_TOKEN || undefined;
  if (!adminToken) {
    const file = join(resolve(cwd, env.DATA_DIR || '.data'), 'admin-token');
    if (existsSync(file)) adminToken = readFileSync(file, 'utf8').trim() || undefined;
  }
  return {
    url,
    adminToken,
    providerKey: env.MMP_PROVIDER_KEY || undefined,
    secretKey: env.MMP_SECRET_KEY || undefined,
  };
}
