import { z } from 'zod';

/** Environment every service reads. Each service extends it with its own variables. */
export const BaseEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /**
   * Prepended to every subject, stream and consumer name, so that several systems
   * (test runs, CI, a local start) share one NATS server without crosstalk.
   */
  NATS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and _ only')
    .default(''),
  MONGO_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port of /healthz, /readyz and /metrics; 0 picks a free port. */
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
  OPS_HOST: z.string().default('0.0.0.0'),
  /** Milliseconds a request/reply call waits before answering service_unavailable. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
});
export type BaseEnv = z.infer<typeof BaseEnv>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Parses the environment once at boot. Every bad variable is named in one message, so an
 * operator fixes them all in one go rather than one per restart.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      return `${name}: ${issue.message}`;
    }),
  );
}

/** For a process entry point: prints the problems and exits 1 instead of throwing. */
export function loadEnvOrExit<S extends z.ZodType>(schema: S, env = process.env): z.infer<S> {
  try {
    return parseEnv(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}
