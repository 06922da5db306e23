// RFC 9421 HTTP Message Signatures for signed gateway requests (api.md "Signed gateway requests"):
// an HMAC-SHA256 over "@method" "@path" "@query" and "content-digest" (RFC 9530), so a caught
// request cannot be re-aimed at another method, path, query or body. Pure: no Nest, no I/O, time
// passed in.
//
// The signature base is built and parsed by the `http-message-signatures` package (RFC 9421) and
// `structured-headers` (RFC 8941), not by hand: both sides use the package's own code for the
// parts that are easy to get subtly wrong (component serialisation, @signature-params). What the
// package does not do is check Content-Digest against the body (it only signs the header's value);
// that is done here over the raw bytes, also chunk by chunk for the SSE route, whose body is read
// after the guard.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import { parseDictionary, parseItem, serializeList } from 'structured-headers';
import { SIGNATURE_TOLERANCE_SECONDS, signingKeyBytes } from './standard-webhooks.js';

export const HEADER_CONTENT_DIGEST = 'content-digest';
export const HEADER_SIGNATURE_INPUT = 'signature-input';
export const HEADER_SIGNATURE = 'signature';
/** The label this service signs under; a verifier accepts any label (RFC 9421 section 4). */
export const SIGNATURE_LABEL = 'sig1';
export const SIGNATURE_ALGORITHM = 'hmac-sha256';
/** Every signature must cover these (more are allowed). */
export const REQUIRED_COMPONENTS = ['@method', '@path', '@query', HEADER_CONTENT_DIGEST] as const;
/** Every signature must carry these parameters. */
export const REQUIRED_PARAMETERS = ['created', 'nonce', 'keyid', 'alg'] as const;
/** A nonce: printable, no quote or backslash (it is an RFC 8941 string), bounded. */
export const NONCE_PATTERN = /^[A-Za-z0-9._~+/=:-]{1,128}$/;
/** Longest Signature / Signature-Input / Content-Digest header parsed (bounds the parsing work). */
export const SIGNATURE_HEADER_BYTES_MAX = 4096;
const SHA256_BYTES = 32;

export type RequestSignatureHeaders = {
  'content-digest': string;
  'signature-input': string;
  signature: string;
};

export type SignRequestInput = {
  method: string;
  /** Absolute URL or a path with its query (`/v1/usage-events/stream?user_id=u_1`). */
  url: string | URL;
  /** The exact bytes sent; '' or absent for a body-less request (it has a digest too). */
  body?: string | Buffer;
  /** The API key's `id` from its creation answer. */
  keyId: string;
  /** The `whsec_...` signing secret (or its key bytes). */
  secret: string | Buffer;
  created?: Date;
  /** Single use: the server refuses a nonce it has seen within 10 minutes. */
  nonce: string;
};

/** RFC 9530 `Content-Digest` of a body: `sha-256=:<base64>:`. */
export function contentDigest(body: string | Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

function absoluteUrl(url: string | URL): URL {
  if (typeof url !== 'string') return url;
  // A path alone: only @path and @query are signed, so the origin is a placeholder. Concatenated,
  // not resolved: a path starting with `//` must stay a path, not become an authority.
  return new URL(url.startsWith('/') ? `http://signing.invalid${url}` : url);
}

/**
 * The three headers that sign one request (send them with exactly `body`). Synchronous, so a load
 * generator can sign in its per-request hook.
 */
export function signRequest(input: SignRequestInput): RequestSignatureHeaders {
  if (!NONCE_PATTERN.test(input.nonce)) throw new Error(`nonce ${JSON.stringify(input.nonce)} is not 1 to 128 of A-Z a-z 0-9 . _ ~ + / = : -`);
  const key = typeof input.secret === 'string' ? signingKeyBytes(input.secret) : input.secret;
  const digest = contentDigest(input.body ?? '');
  const message = { method: input.method, url: absoluteUrl(input.url), headers: { [HEADER_CONTENT_DIGEST]: digest } };
  const parameters = new Map<string, string | number>([
    ['created', Math.floor((input.created ?? new Date()).getTime() / 1000)],
    ['nonce', input.nonce],
    ['keyid', input.keyId],
    ['alg', SIGNATURE_ALGORITHM],
  ]);
  const base = httpbis.createSignatureBase({ fields: [...REQUIRED_COMPONENTS] }, message);
  const signatureInput = serializeList([[base.map(([item]) => parseItem(item)), parameters]]);
  base.push(['"@signature-params"', [signatureInput]]);
  const signature = createHmac('sha256', key).update(httpbis.formatSignatureBase(base)).digest('base64');
  return { 'content-digest': digest, 'signature-input': `${SIGNATURE_LABEL}=${signatureInput}`, signature: `${SIGNATURE_LABEL}=:${signature}:` };
}

type HeaderBag = Record<string, string | string[] | undefined>;

export type ReceivedRequest = {
  method: string;
  /** The request-target as received (path and query, not decoded, not normalised). */
  target: string;
  headers: HeaderBag;
};

export type RequestSignatureCheck =
  | { ok: true; nonce: string; createdSeconds: number; bodyDigest: Buffer }
  | { ok: false; reason: string };

/** The sha-256 member of a Content-Digest header, or a reason it has none. */
function sha256OfContentDigest(header: string | string[] | undefined): Buffer | string {
  if (typeof header !== 'string') return 'missing Content-Digest header';
  if (header.length > SIGNATURE_HEADER_BYTES_MAX) return 'Content-Digest header is too long';
  let member: unknown;
  try {
    member = parseDictionary(header).get('sha-256')?.[0];
  } catch {
    return 'Content-Digest is not an RFC 8941 dictionary';
  }
  if (!(member instanceof ArrayBuffer) || member.byteLength !== SHA256_BYTES) return 'Content-Digest has no sha-256=:<base64 of 32 bytes>:';
  return Buffer.from(member);
}

/**
 * Verifies the RFC 9421 signature of a request made with a signed key (not its body: the caller
 * compares `bodyDigest` with the body's SHA-256, at once or as it streams). `@path` and `@query`
 * are taken from the request-target exactly as received, so a request whose target differs in any
 * byte from the one signed is refused.
 */
export async function verifyRequestSignature(request: ReceivedRequest, signer: { keyId: string; key: Buffer }, nowMs: number): Promise<RequestSignatureCheck> {
  const signatureInput = request.headers[HEADER_SIGNATURE_INPUT];
  const signature = request.headers[HEADER_SIGNATURE];
  if (typeof signatureInput !== 'string' || typeof signature !== 'string') return { ok: false, reason: 'missing Signature-Input or Signature header (RFC 9421)' };
  if (signatureInput.length > SIGNATURE_HEADER_BYTES_MAX || signature.length > SIGNATURE_HEADER_BYTES_MAX) return { ok: false, reason: 'Signature-Input or Signature header is too long' };
  const bodyDigest = sha256OfContentDigest(request.headers[HEADER_CONTENT_DIGEST]);
  if (typeof bodyDigest === 'string') return { ok: false, reason: bodyDigest };

  const nowSeconds = Math.floor(nowMs / 1000);
  const queryAt = request.target.indexOf('?');
  const path = queryAt === -1 ? request.target : request.target.slice(0, queryAt);
  const query = queryAt === -1 ? '?' : request.target.slice(queryAt);
  let refusal: string | null = null;
  let verified: { nonce: string; createdSeconds: number } | null = null;
  const headers = request.headers as Record<string, string | string[]>;
  try {
    const result = await httpbis.verifyMessage(
      {
        requiredFields: [...REQUIRED_COMPONENTS],
        requiredParams: [...REQUIRED_PARAMETERS],
        // The package holds `created` against its own clock; the window is checked below instead.
        notAfter: Number.MAX_SAFE_INTEGER,
        componentParser: (name) => (name === '@path' ? [path || '/'] : name === '@query' ? [query] : null),
        keyLookup: async (parameters) =>
          parameters.keyid !== signer.keyId
            ? null
            : {
                id: signer.keyId,
                algs: [SIGNATURE_ALGORITHM],
                verify: async (data, offered, params) => {
                  const created = params?.created instanceof Date ? Math.floor(params.created.getTime() / 1000) : Number.NaN;
                  const nonce = params?.nonce;
                  if (!Number.isInteger(created) || Math.abs(nowSeconds - created) > SIGNATURE_TOLERANCE_SECONDS) {
                    refusal = `created is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now`;
                    return false;
                  }
                  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce)) {
                    refusal = 'nonce must be a string of 1 to 128 of A-Z a-z 0-9 . _ ~ + / = : -';
                    return false;
                  }
                  const expected = createHmac('sha256', signer.key).update(data).digest();
                  const matches = offered.length === expected.length && timingSafeEqual(offered, expected);
                  if (matches) verified = { nonce, createdSeconds: created };
                  else refusal = 'the signature does not match the method, path, query and Content-Digest';
                  return matches;
                },
              },
      },
      { method: request.method, url: `http://signing.invalid${path}`, headers },
    );
    if (result === true && verified !== null) {
      const { nonce, createdSeconds } = verified;
      return { ok: true, nonce, createdSeconds, bodyDigest };
    }
    return { ok: false, reason: refusal ?? `no signature with keyid ${JSON.stringify(signer.keyId)} and alg ${SIGNATURE_ALGORITHM}` };
  } catch (error) {
    // The package throws on malformed or incomplete input (missing components or parameters, a
    // header not RFC 8941, an unsupported alg): every one is a refused signature.
    return { ok: false, reason: error instanceof Error ? error.message : 'malformed signature' };
  }
}

/** Whether a body's SHA-256 equals the Content-Digest's, in constant time. */
export function bodyDigestMatches(expected: Buffer, actual: Buffer): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
