// The Standard Webhooks signature scheme (https://www.standardwebhooks.com), both ways: our webhook
// deliveries are signed with it, and signed gateways' queue jobs carry it over their whole payload
// text. (HTTP requests from gateways are signed with RFC 9421 instead, which also covers method,
// path and query: http-message-signature.ts.) Pure: no Nest, no I/O, time passed in.
//
// Signing goes through the `standardwebhooks` package (what receivers verify with). Verifying uses
// node:crypto's native HMAC with the key decoded once: the package's pure-JS SHA-256 costs ~65 us
// per 400-byte payload against ~10 us. standard-webhooks.spec.ts proves both agree on every input.
import { createHmac, randomBytes, timingSafeEqual, type Hmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SIGNING_SECRET_PREFIX = 'whsec_';
/** 256-bit secrets (the spec asks for 24 to 64 bytes). */
export const SIGNING_SECRET_BYTES = 32;
/** A signature's timestamp may be this far from now, either way (the spec's 5 minutes). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** At most this many signatures in one header (key rotation sends two). */
const SIGNATURES_PER_HEADER_MAX = 8;

export const HEADER_WEBHOOK_ID = 'webhook-id';
export const HEADER_WEBHOOK_TIMESTAMP = 'webhook-timestamp';
export const HEADER_WEBHOOK_SIGNATURE = 'webhook-signature';

/**
 * An id that may be signed: no `.` (the signed content is `id.timestamp.body`, a dot would let one
 * signature pass for another split), printable, bounded.
 */
export const SIGNATURE_ID_PATTERN = /^[A-Za-z0-9_:\-]{1,128}$/;

export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;
}

/** The HMAC key of a `whsec_` secret (base64 after the prefix, as the package reads it). */
export function signingKeyBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('signing secret is empty');
  return key;
}

/** Signs one message with the standardwebhooks package; the headers to send with the body. */
export function signStandardWebhook(secret: string, message: { id: string; timestamp: Date; body: string }): SignatureHeaders {
  if (!SIGNATURE_ID_PATTERN.test(message.id)) throw new Error(`signature id ${JSON.stringify(message.id)} is not signable`);
  const signature = new Webhook(secret).sign(message.id, message.timestamp, message.body);
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

export type SignatureHeaderCheck =
  | { ok: true; id: string; timestampSeconds: number; signatures: string[] }
  | { ok: false; reason: string };

type HeaderBag = Record<string, string | string[] | undefined>;

function single(headers: HeaderBag, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}

/**
 * The three headers, before the body is looked at: present once each, an id that may be signed, a
 * whole-second timestamp within the tolerance of now, and at least one `v1,` signature.
 */
export function checkSignatureHeaders(headers: HeaderBag, nowSeconds: number): SignatureHeaderCheck {
  const id = single(headers, HEADER_WEBHOOK_ID);
  const timestamp = single(headers, HEADER_WEBHOOK_TIMESTAMP);
  const signature = single(headers, HEADER_WEBHOOK_SIGNATURE);
  if (id === null || timestamp === null || signature === null) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
  if (!SIGNATURE_ID_PATTERN.test(id)) return { ok: false, reason: 'webhook-id must be 1 to 128 letters, digits, _ : or - (no dot)' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp must be whole seconds since the epoch' };
  const timestampSeconds = Number(timestamp);
  if (Math.abs(nowSeconds - timestampSeconds) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: `webhook-timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now` };
  }
  const signatures = signature
    .split(' ')
    .slice(0, SIGNATURES_PER_HEADER_MAX)
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  if (signatures.length === 0) return { ok: false, reason: 'webhook-signature holds no v1 signature' };
  return { ok: true, id, timestampSeconds, signatures };
}

/** An HMAC primed with `id.timestamp.`: feed it the body (at once or chunk by chunk), then digest. */
export function signatureHmac(key: Buffer, id: string, timestampSeconds: number): Hmac {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.`, 'utf8');
}

/** Whether a base64 digest equals one of the offered signatures, in constant time per candidate. */
export function digestMatches(digest: Buffer, signatures: readonly string[]): boolean {
  let matched = false;
  for (const candidate of signatures) {
    const offered = Buffer.from(candidate, 'base64');
    // Different lengths cannot match; timingSafeEqual needs equal lengths.
    if (offered.length === digest.length && timingSafeEqual(offered, digest)) matched = true;
  }
  return matched;
}

/** Verifies a whole body against checked headers. */
export function bodyMatchesSignature(key: Buffer, check: { id: string; timestampSeconds: number; signatures: readonly string[] }, body: Buffer | string): boolean {
  return digestMatches(signatureHmac(key, check.id, check.timestampSeconds).update(body).digest(), check.signatures);
}
