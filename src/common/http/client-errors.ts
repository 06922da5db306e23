import type { Duplex } from 'node:stream';
import { ownEntry } from '../collections/own-entry.js';
import { errorBody } from '../errors/error-body.js';

const RESPONSES: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', code: 'payload_too_large', message: 'request line and headers exceed 16 KiB' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', code: 'payload_too_large', message: 'chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'validation_failed', message: 'request not received in time' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', code: 'validation_failed', message: 'malformed HTTP request' };

/**
 * Fastify's clientErrorHandler: requests Node's HTTP parser refuses (a request line past 16 KiB,
 * broken framing) never reach a route. Answer in the api.md error shape, with the statuses Node
 * would use, and close the connection as Node does.
 */
export function answerClientErrorAsJson(error: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }): void {
  if (socket.writable && (socket.bytesWritten ?? 0) === 0 && error.code !== 'ECONNRESET') {
    const r = (error.code && ownEntry(RESPONSES, error.code)) || MALFORMED;
    const body = JSON.stringify(errorBody(r.code, r.message));
    socket.write(
      `HTTP/1.1 ${r.status} ${r.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
