import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Line = Parameters<FastifyBaseLogger['info']>;
type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type Bindings = Parameters<FastifyBaseLogger['child']>[0];

/** A request's logger until its first line: the parent, and what its child will bind. */
type Deferred = {
  parent: FastifyBaseLogger;
  bindings: Bindings;
  /** The child, once made (not `child`: the prototype's method has that name). */
  made?: FastifyBaseLogger;
};

function childOf(self: Deferred): FastifyBaseLogger {
  return (self.made ??= self.parent.child(self.bindings));
}

function write(self: Deferred, level: Level, line: Line): void {
  if (self.made || enabled(self.parent, level)) childOf(self)[level](...line);
}

/** pino answers `isLevelEnabled`; a logger without it (Fastify's null logger) lets every line through. */
function enabled(logger: FastifyBaseLogger, level: Level): boolean {
  const asked = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return asked ? asked.call(logger, level) : true;
}

const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

// Methods on a prototype, called on the logger as pino's own are: a request pays for one
// small object, not for six closures.
const deferredLogger = {
  get level() {
    return (this.made ?? this.parent).level;
  },
  set level(level) {
    childOf(this).level = level;
  },
  child(bindings, options) {
    return childOf(this).child(bindings, options);
  },
  silent() {},
  ...(Object.fromEntries(
    LEVELS.map((level) => [
      level,
      function (this: Deferred, ...line: Line) {
        write(this, level, line);
      },
    ]),
  ) as Record<Level, (...line: Line) => void>),
} as ThisType<Deferred> & FastifyBaseLogger;

/**
 * Fastify's per-request logger, made on the request's first line that its level lets
 * through. pino serialises, and redacts, a child's bindings when the child is made: for a
 * request that writes no line (a read at info, any request with logs silenced) that was a
 * fifth of the CPU of a merchant's read answered from the kept reply. Services defer
 * theirs the same way (`rpc.ts`, `answer`). A route with a level or serialisers of its own
 * gets its child at once, since only the child knows which lines it lets through.
 */
export const childOnFirstLine: ChildLoggerFactory = function (parent, bindings, options) {
  if (options.level !== undefined || options.serializers !== undefined)
    return parent.child(bindings, options);
  const self: Deferred = Object.create(deferredLogger);
  self.parent = parent;
  self.bindings = bindings;
  return self as unknown as FastifyBaseLogger;
};
