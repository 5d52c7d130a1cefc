import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths whose values never reach a log line. Keys and secrets are also never logged on
 * purpose; this list is the safety net for an object logged whole.
 */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'headers["x-service-signature"]',
  '*.headers["x-service-signature"]',
  'secret',
  '*.secret',
  '*.*.secret',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'keys',
  '*.keys',
  'signingSecret',
  '*.signingSecret',
  'webhookSecret',
  '*.webhookSecret',
  'password',
  '*.password',
  'adminToken',
  '*.adminToken',
];

/** Any string that looks like one of our secrets, wherever it appears in a message. */
const SECRET_PATTERN = /\b(svc_(?:test|live)_(?:sk|pk)_|whsec_|ssec_|sk_)[A-Za-z0-9]{8,}/g;

export function maskSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, (_m, prefix: string) => `${prefix}[REDACTED]`);
}

export function createLogger(options: {
  service: string;
  level: string;
  destination?: NodeJS.WritableStream;
}): Logger {
  const config: LoggerOptions = {
    name: options.service,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      // Messages are free text and may interpolate a value; mask anything key-shaped.
      logMethod(args, method) {
        const masked = args.map((arg) => (typeof arg === 'string' ? maskSecrets(arg) : arg));
        return method.apply(this, masked as Parameters<typeof method>);
      },
    },
  };
  return options.destination ? pino(config, options.destination as pino.DestinationStream) : pino(config);
}
