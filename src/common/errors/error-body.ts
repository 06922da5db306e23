import type { FastifyReply } from 'fastify';
import type { ErrorCode } from './domain-error.js';

export interface ErrorBody {
  error: { code: ErrorCode | string; message: string; details?: unknown };
}

export function errorBody(code: ErrorCode | string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

export function sendError(reply: FastifyReply, status: number, code: ErrorCode | string, message: string, details?: unknown): void {
  if (reply.sent) return;
  void reply.code(status).header('content-type', 'application/json; charset=utf-8').send(errorBody(code, message, details));
}
