import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Environment every service reads. Each service extends it with its own variables. */
const NATS_SERVER = /^(?:(?:nats|tls|ws|wss):\/\/[^\s,/]+|[^\s,:/]+:\d+)$/;

export const DeploymentMode = z.enum(['development', 'production']);

export const BaseEnv = z.object({
  /**
   * `production` refuses what only development may do: running without NATS credentials,
   * and the loopback switch below. The Kubernetes manifests set it; `pnpm start` does not.
   */
  DEPLOYMENT_MODE: DeploymentMode.default('development'),
  /**
   * Development and tests only: outbound calls (rail endpoints, merchant webhooks, logos) may
   * go to loopback (`localhost`, 127.0.0.0/8, `[::1]`), over `http://` too. Private and
   * link-local ranges stay refused. Refused in production.
   */
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: z.stringbool().default(false),
  /** NATS servers, comma-separated (`nats://host:4222,nats://other:4222`). */
  NATS_URL: z
    .string()
    .refine(
      (value) => value.split(',').every((server) => NATS_SERVER.test(server.trim())),
      'must be NATS server URLs, comma-separated (nats://host:4222,tls://host:4222)',
    )
    .default('nats://127.0.0.1:4222'),
  /**
   * Prepended to every subject, stream and consumer name, so that several systems
   * (test runs, CI, a local start) share one NATS server without crosstalk.
   */
  NATS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and _ only')
    .default(''),
  /**
   * The service's NATS user, when the server requires one (production: each service has its
   * own, with permissions on its own subjects). Unset in development: no authentication.
   * Set NATS_USER and NATS_PASSWORD together, or NATS_CREDS instead.
   */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  /** Path of a NATS `.creds` file (JWT and NKey seed), for servers in operator (JWT) mode. */
  NATS_CREDS: z.string().optional(),
  /**
   * Replicas of the EVENTS stream when a service creates it (the first one to start does).
   * 3 on a three-node JetStream cluster; a stream that exists keeps its own setting.
   */
  EVENTS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// connection string')
    .optional(),
  /**
   * Prepended to each service's MongoDB database name (`<prefix>_<service>`), so that several
   * systems (staging and a test run, every end-to-end test) share one MongoDB. Empty: the
   * database is the service's name.
   */
  MONGO_DB_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]{0,32}$/, 'lowercase letters, digits and _ only, at most 32')
    .default(''),
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port of /healthz, /readyz and /metrics; 0 picks a free port. */
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
  OPS_HOST: z.string().default('0.0.0.0'),
  /** Milliseconds a request/reply call waits before answering service_unavailable. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /**
   * On SIGTERM, how long the service keeps serving with /readyz at 503 before it stops
   * taking work, so that the ingress and Kubernetes endpoints stop sending it traffic first.
   */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().nonnegative().default(5000),
  /**
   * Then, how long in-flight requests and event handlers get to finish. Past it the process
   * exits 1 with the rest unfinished (redelivered or relayed later). Keep delay + timeout
   * under the pod's terminationGracePeriodSeconds (30 s by default).
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
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
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
  const fromFiles = withFileValues(schema, cleaned);
  const result = schema.safeParse(fromFiles.env);
  if (result.success) {
    const problems = [...fromFiles.problems, ...productionProblems(result.data as Partial<BaseEnv>)];
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  throw new ConfigError([
    ...fromFiles.problems,
    ...result.error.issues.map((issue) => {
      const [variable = '(environment)', ...inside] = issue.path.map(String);
      const where = `${variable}${inside.length ? ` (item ${inside.join('.')})` : ''}`;
      return `${where}: ${problemOf(issue, variable, fromFiles.env[variable])}`;
    }),
  ]);
}

/**
 * What is wrong with one variable, in an operator's words: zod's own "expected string,
 * received undefined" for a variable nobody set, or "received NaN" for a port written as
 * text, does not say what to do. The value itself is never repeated: it may be a secret.
 */
function problemOf(issue: z.core.$ZodIssue, variable: string, value: string | undefined): string {
  if (issue.code !== 'invalid_type') return issue.message;
  if (value === undefined) return `required, not set (set it, or ${variable}_FILE to a file holding it)`;
  if (issue.expected === 'number') return 'not a number';
  return issue.message;
}

/**
 * `X_FILE=/path` sets `X` from that file (trimmed), for every variable `X` the schema reads:
 * secrets mounted as files (a Kubernetes Secret volume), kept out of the environment and
 * out of the data folder.
 */
function withFileValues(schema: z.ZodType, env: Record<string, string>) {
  const declared = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const problems: string[] = [];
  const values = { ...env };
  for (const name of declared) {
    const path = env[`${name}_FILE`];
    if (!path) continue;
    if (env[name]) problems.push(`${name}: set ${name} or ${name}_FILE, not both`);
    try {
      values[name] = readFileSync(path, 'utf8').trim();
    } catch (error) {
      problems.push(
        `${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  return { env: values, problems };
}

/** What a production deployment must have, and what only development may do. */
function productionProblems(env: Partial<BaseEnv>): string[] {
  if (env.DEPLOYMENT_MODE !== 'production') return [];
  const problems: string[] = [];
  if (!env.NATS_USER && !env.NATS_CREDS) {
    problems.push('NATS_USER: production needs NATS credentials (NATS_USER/NATS_PASSWORD or NATS_CREDS)');
  }
  if (env.ALLOW_HTTP_LOOPBACK_ENDPOINTS) {
    problems.push('ALLOW_HTTP_LOOPBACK_ENDPOINTS: a development switch, refused in production');
  }
  return problems;
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
