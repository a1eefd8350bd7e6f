import { pino } from 'pino';
import type { Logger } from 'pino';

export type { Logger };

/** The one pino logger; components take child loggers (`logger.child({ component: 'x' })`). */
export function createLogger(options: { level?: string; pretty?: boolean } = {}): Logger {
  return pino({ level: options.level ?? process.env['LOG_LEVEL'] ?? 'info', base: { service: 'racing' } });
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
