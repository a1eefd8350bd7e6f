/**
 * Fastify gives every request a child logger bound to its request id. pino builds a child eagerly
 * (bindings serialised, object created) although a request that succeeds logs nothing now that request
 * logging is off; this factory hands out a stand-in that makes the real child only when the request
 * first logs, so the id is still on every line that is written.
 */
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LogArgs = Parameters<FastifyBaseLogger['info']>;

class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  set level(value: string) {
    this.#real().level = value;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  fatal(...args: LogArgs): void {
    this.#real().fatal(...args);
  }
  error(...args: LogArgs): void {
    this.#real().error(...args);
  }
  warn(...args: LogArgs): void {
    this.#real().warn(...args);
  }
  info(...args: LogArgs): void {
    this.#real().info(...args);
  }
  debug(...args: LogArgs): void {
    this.#real().debug(...args);
  }
  trace(...args: LogArgs): void {
    this.#real().trace(...args);
  }
  silent(...args: LogArgs): void {
    this.#real().silent(...args);
  }
  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory option. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
