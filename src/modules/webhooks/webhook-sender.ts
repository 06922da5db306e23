// One delivery attempt over HTTP: a POST of the signed body, 10 s at most, redirects not followed
// (Standard Webhooks: a 3xx is a failure), the response body read only up to a small limit.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { signStandardWebhook } from '../../common/signing/standard-webhooks.js';
import { checkHost, guardedLookup, type AddressResolver } from './webhook-address-resolver.js';
import { checkWebhookUrl } from './webhook-url-policy.js';
import type { AttemptResult } from './webhook-retry.js';

/** The whole attempt (connect, send, answer) must finish within this. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Response bytes read (and thrown away) before the connection is closed. */
const RESPONSE_BYTES_MAX = 64 * 1024;
const ERROR_TEXT_MAX = 300;
const USER_AGENT = 'contributor-ledger-webhooks/1';

export interface OutgoingWebhook {
  url: string;
  secret: string;
  /** The event's message id: the webhook-id of every attempt. */
  messageId: string;
  /** The exact JSON that is signed and sent: {type, timestamp, data}. */
  body: string;
}

export interface SendOptions {
  allowPrivate: boolean;
  httpsOnly: boolean;
  timeoutMs?: number;
  now?: () => Date;
  /** DNS for the delivery's connection (tests stub it; default: the system resolver). */
  resolve?: AddressResolver;
  /** Ends the attempt at once (worker shutdown). */
  signal?: AbortSignal;
}

export interface SentAttempt extends AttemptResult {
  latencyMs: number;
}

function errorText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const text = e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
  return (text || 'request failed').slice(0, ERROR_TEXT_MAX);
}

/** Sends one attempt; never throws (every outcome is an AttemptResult). */
export async function sendWebhook(webhook: OutgoingWebhook, options: SendOptions): Promise<SentAttempt> {
  const startedMs = Date.now();
  const elapsed = () => Date.now() - startedMs;
  const urlCheck = checkWebhookUrl(webhook.url, { httpsOnly: options.httpsOnly });
  if (!urlCheck.ok) return { statusCode: null, error: `URL refused: ${urlCheck.reason}`, latencyMs: 0 };
  // An IP literal never goes through the lookup: check it here. Names are checked by the lookup.
  if (urlCheck.ipLiteral) {
    const hostCheck = await checkHost(urlCheck.host, { allowPrivate: options.allowPrivate, ipLiteral: true });
    if (!hostCheck.ok) return { statusCode: null, error: `address refused: ${hostCheck.reason}`, latencyMs: 0 };
  }
  const headers = signStandardWebhook(webhook.secret, { id: webhook.messageId, timestamp: (options.now ?? (() => new Date()))(), body: webhook.body });
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return new Promise<SentAttempt>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const send = urlCheck.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(urlCheck.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(webhook.body), 'user-agent': USER_AGENT, ...headers },
      // A fresh connection per attempt, so every attempt resolves (and checks) the name again.
      agent: false,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) }),
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const abort = () => req.destroy(new Error('aborted: the worker is shutting down'));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => options.signal?.removeEventListener('abort', abort));
    req.on('response', (res: IncomingMessage) => {
      let received = 0;
      const statusCode = res.statusCode ?? null;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > RESPONSE_BYTES_MAX) {
          res.destroy();
          finish({ statusCode, error: null });
        }
      });
      res.on('end', () => finish({ statusCode, error: null }));
      res.on('error', () => finish({ statusCode, error: null }));
      res.on('aborted', () => finish({ statusCode, error: null }));
    });
    req.on('error', (error) => finish({ statusCode: null, error: errorText(error) }));
    req.end(webhook.body);
  });
}
