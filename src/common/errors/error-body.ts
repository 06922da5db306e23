import type { Response } from 'express';
import type { ErrorCode } from './domain-error.js';

export interface ErrorBody {
  error: { code: ErrorCode | string; message: string; details?: unknown };
}

export function errorBody(code: ErrorCode | string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

export function sendError(res: Response, status: number, code: ErrorCode | string, message: string, details?: unknown) {
  if (res.headersSent) return;
  res.status(status).json(errorBody(code, message, details));
}
