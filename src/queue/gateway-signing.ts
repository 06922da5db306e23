// How a gateway signs its requests to this service when its key was created with signed: true
// (also used by tests, the demo and the bench). The Standard Webhooks scheme over the raw body:
// send these three headers with exactly the bytes that were signed.
import { randomUUID } from 'node:crypto';
import { signStandardWebhook, type SignatureHeaders } from '../common/signing/standard-webhooks.js';

export type { SignatureHeaders };

/**
 * Headers for one request. Every request needs a fresh id (a repeat within 10 minutes is refused
 * as a replay) and a timestamp within 5 minutes of the server's clock. `body` is the exact
 * request body ('' for a GET or a body-less POST).
 */
export function signGatewayRequest(signingSecret: string, body: string, options: { id?: string; now?: Date } = {}): SignatureHeaders {
  return signStandardWebhook(signingSecret, { id: options.id ?? `req_${randomUUID()}`, timestamp: options.now ?? new Date(), body });
}
