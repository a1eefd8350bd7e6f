/**
 * Routes kafkajs's logs into the service's pino logger (one logger, child per component).
 *
 * kafkajs logs every failed response at error level, including the ones it retries as a matter of
 * course while a group coordinator loads, a leader moves or a group rebalances. Those are expected
 * in a healthy cluster and would drown real errors, so they go to debug; connection failures go to
 * warn (when they persist, the adapter's own call fails with `broker_unreachable`).
 */
import { type LogEntry, type logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../../domain/logger.js';

type PinoLevel = 'error' | 'warn' | 'info' | 'debug';

/** Responses kafkajs retries by itself: transient while coordinators, leaders and groups settle. */
const RETRIED_RESPONSE =
  /coordinator is not available|not the correct coordinator|coordinator is loading|leader (is )?not available|no leader|not the leader|does not host this topic-partition|rebalanc|generation id is not valid|member id is not valid|unknown member|fetch session|leader epoch/i;

/** Routine lifecycle messages that kafkajs logs at info. */
const ROUTINE = /^(Pausing|Resuming) fetching from|^Starting$|^Stopped$|consumer not running|^Received assignment/;

/** The kafkajs log level to configure for a pino logger (kafkajs skips building entries below it). */
export function kafkaLogLevel(logger: Logger): logLevel {
  if (logger.isLevelEnabled('debug')) return logLevel.DEBUG;
  if (logger.isLevelEnabled('info')) return logLevel.INFO;
  return logLevel.WARN;
}

/** A kafkajs `logCreator` writing to `logger` (entries carry kafkajs's namespace, e.g. Consumer, Connection). */
export function pinoLogCreator(logger: Logger): logCreator {
  return () => (entry: LogEntry) => {
    const {
      message,
      timestamp: _timestamp,
      logger: _source,
      ...extra
    } = entry.log as LogEntry['log'] & {
      [key: string]: unknown;
    };
    const level = pinoLevel(entry.level, message, extra);
    if (!logger.isLevelEnabled(level)) return;
    logger[level]({ kafkajs: entry.namespace, ...extra }, message);
  };
}

function pinoLevel(level: logLevel, message: string, extra: Record<string, unknown>): PinoLevel {
  const error = typeof extra['error'] === 'string' ? extra['error'] : '';
  switch (level) {
    case logLevel.ERROR:
      if (message.startsWith('Response ') && RETRIED_RESPONSE.test(error)) return 'debug';
      if (/^Connection (error|timeout)|Failed to connect to seed broker|^Restarting the consumer/.test(message)) {
        return 'warn';
      }
      return 'error';
    case logLevel.WARN:
      if (RETRIED_RESPONSE.test(`${message} ${error}`)) return 'info';
      // The Kafka log replaces its producer after a failed send instead of retrying forever (kafka-log.ts).
      if (message.startsWith('Limiting retries for the idempotent producer')) return 'debug';
      return 'warn';
    case logLevel.INFO:
      return ROUTINE.test(message) ? 'debug' : 'info';
    default:
      return 'debug';
  }
}
