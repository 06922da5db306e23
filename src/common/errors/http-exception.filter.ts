import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodValidationException } from 'nestjs-zod';
import { ZodError } from 'zod';
import { DomainError, RateLimitedError, type ErrorCode } from './domain-error.js';
import { sendError } from './error-body.js';
import { zodIssuesToFields } from './zod-issues.js';
import { isDatabaseUnavailable, isNumericOutOfRange } from './database-errors.js';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  402: 'insufficient_funds',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/** The one place errors become HTTP: the api.md shape, never a stack trace. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof DomainError) {
      if (exception.code === 'rate_limited') {
        res.header('Retry-After', String(exception instanceof RateLimitedError ? exception.retryAfterSeconds : 1));
      }
      return sendError(res, exception.httpStatus, exception.code, exception.message, exception.details);
    }
    if (exception instanceof ZodValidationException) {
      const zodError = exception.getZodError();
      const details = zodError instanceof ZodError ? zodIssuesToFields(zodError) : undefined;
      return sendError(res, 400, 'validation_failed', 'request validation failed', details);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
      const message = status === 404 ? 'route not found' : exception.message;
      if (status === 429) res.header('Retry-After', '1');
      return sendError(res, status, code, message);
    }
    if (isDatabaseUnavailable(exception)) {
      this.log(host, 'warn', `database unavailable: ${(exception as Error).message}`);
      res.header('Retry-After', '1');
      return sendError(res, HttpStatus.SERVICE_UNAVAILABLE, 'unavailable', 'database unavailable, retry later');
    }
    if (isNumericOutOfRange(exception)) {
      // The transaction rolled back; nothing was written. Logged: legitimate traffic never gets here.
      this.log(host, 'warn', `amount out of range: ${(exception as Error).message}`);
      return sendError(res, 422, 'unprocessable', 'an amount or the balance it produces is out of range');
    }
    this.log(host, 'error', exception instanceof Error ? exception.stack ?? exception.message : String(exception));
    return sendError(res, 500, 'internal_error', 'internal error');
  }

  /** Through the request's own logger when there is one, so the line carries the request id. */
  private log(host: ArgumentsHost, level: 'warn' | 'error', message: string): void {
    const requestLog = host.switchToHttp().getRequest<FastifyRequest | undefined>()?.log;
    if (requestLog) requestLog[level]({ context: 'HttpExceptionFilter' }, message);
    else this.logger[level](message);
  }
}
