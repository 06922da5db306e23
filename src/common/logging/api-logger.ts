// The HTTP API's logging: one pino logger for Fastify's request logs and Nest's own messages.
// Fastify gives every request a child logger carrying its id, without the per-request
// middleware and AsyncLocalStorage that pino-http under Nest cost (a fifth of a request's CPU).
import type { LoggerService } from '@nestjs/common';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino, type Level, type Logger } from 'pino';
import { traceLogMixin } from '../tracing/tracing.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._\-]{1,128}$/;

export function createApiLogger(level: string): Logger {
  return pino({
    level,
    // Secrets never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.key', '*.private_key'], censor: '[redacted]' },
    // trace_id / span_id of the active span on every line (tracing on only: no cost when off).
    mixin: traceLogMixin(),
  });
}

/** A well-formed X-Request-Id from the caller (a gateway's trace id), else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}

/**
 * One line per request when it completes, at a level that follows the status (5xx error, 4xx
 * warn, else info), instead of Fastify's two info lines. Nothing is built when the level is off.
 */
export class ApiLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const level: Level = error || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    // Fastify's logger here is the pino child of createApiLogger (its type omits isLevelEnabled).
    const log = reply.log as unknown as Logger;
    if (!log.isLevelEnabled(level)) return;
    // The span may have ended by now (the response is sent): its ids were kept on the request.
    const line = { ...request.traceLogIds, req: { method: request.method, url: request.url }, res: { statusCode: status }, responseTime: reply.elapsedTime };
    log[level](error ? { ...line, err: error } : line, error ? 'request errored' : 'request completed');
  }
}

const NEST_LEVELS = { log: 'info', error: 'error', warn: 'warn', debug: 'debug', verbose: 'trace', fatal: 'fatal' } as const;

/** Nest's LoggerService over pino: Nest passes (message, ...params, context?). */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  // One method per Nest level, each bound to this logger.
  readonly log = this.writer('log');
  readonly error = this.writer('error');
  readonly warn = this.writer('warn');
  readonly debug = this.writer('debug');
  readonly verbose = this.writer('verbose');
  readonly fatal = this.writer('fatal');

  private writer(method: keyof typeof NEST_LEVELS): (message: unknown, ...params: unknown[]) => void {
    return (message, ...params) => this.write(method, message, params);
  }

  private write(method: keyof typeof NEST_LEVELS, message: unknown, params: unknown[]): void {
    const level = NEST_LEVELS[method];
    if (!this.logger.isLevelEnabled(level)) return;
    const context = params.length > 0 && typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    // error(message, stack, context): the stack is the string before the context.
    const stack = method === 'error' && params.length > 1 && typeof params[0] === 'string' ? params[0] : undefined;
    if (message instanceof Error) this.logger[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level](stack === undefined ? { context } : { context, stack }, String(message));
  }
}
