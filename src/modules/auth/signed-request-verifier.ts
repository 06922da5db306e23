import { Injectable } from '@nestjs/common';
import type { Hmac } from 'node:crypto';
import { DomainError } from '../../common/errors/index.js';
import { RAW_BODY_ROUTES } from '../../common/http/body-parsers.js';
import { bodyMatchesSignature, checkSignatureHeaders, digestMatches, signatureHmac } from '../../common/signing/standard-webhooks.js';
import type { PrincipalRequest } from '../../common/auth/principal.decorator.js';
import { SignatureReplayGuard } from './signature-replay-guard.js';

/**
 * rawBody: the JSON body's bytes, kept by the body parser for signature checks. Defined beside
 * StreamedSignature (rather than with CurrentPrincipal) so the two never import each other.
 */
export type AuthedRequest = PrincipalRequest & { rawBody?: Buffer; streamedSignature?: StreamedSignature };

/** The one raw-body route a gateway calls; it feeds its body through StreamedSignature. */
export const SIGNED_STREAM_ROUTE = '/v1/usage-events/stream';
const EMPTY_BODY = Buffer.alloc(0);

export const badSignature = (reason: string) => new DomainError('bad_signature', `request signature refused: ${reason}`);

/**
 * A signature checked as the body streams in (SSE ingestion reads its body only after the guard):
 * the route feeds every chunk, then completes before it stores anything.
 */
export class StreamedSignature {
  private readonly hmac: Hmac;

  constructor(
    key: Buffer,
    private readonly signatures: readonly string[],
    id: string,
    timestampSeconds: number,
    private readonly claim: () => Promise<void>,
  ) {
    this.hmac = signatureHmac(key, id, timestampSeconds);
  }

  update(chunk: Buffer): void {
    this.hmac.update(chunk);
  }

  /** Throws bad_signature unless the whole body matched; then records the id (replays refused). */
  async complete(): Promise<void> {
    if (!digestMatches(this.hmac.digest(), this.signatures)) throw badSignature('the signature does not match the body');
    await this.claim();
  }
}

/** The streamed check the guard left on a signed request to the SSE route (null: unsigned key). */
export function streamedSignatureOf(request: unknown): StreamedSignature | null {
  return (request as AuthedRequest).streamedSignature ?? null;
}

/**
 * Checks a request made with a signed gateway key: Standard Webhooks headers, a timestamp within
 * 5 minutes, an HMAC over the raw body, and an id not seen before (Redis, shared by replicas).
 * Runs in the auth guard, before the handler: a refused request stores nothing.
 */
@Injectable()
export class SignedRequestVerifier {
  nowMs: () => number = Date.now;

  constructor(private readonly replays: SignatureReplayGuard) {}

  async verify(request: AuthedRequest, keyId: string, signingKey: Buffer): Promise<void> {
    const check = checkSignatureHeaders(request.headers, Math.floor(this.nowMs() / 1000));
    if (!check.ok) throw badSignature(check.reason);
    const route = request.routeOptions.url ?? '';
    const claim = () => this.claimOrRefuse(keyId, check.id);
    if (RAW_BODY_ROUTES.has(route)) {
      // Only the SSE route streams its body through a StreamedSignature; no other raw route is a
      // gateway's, and one that did not check would let an unverified body through.
      if (route !== SIGNED_STREAM_ROUTE) throw badSignature('this route does not take signed requests');
      request.streamedSignature = new StreamedSignature(signingKey, check.signatures, check.id, check.timestampSeconds, claim);
      return;
    }
    if (!bodyMatchesSignature(signingKey, check, request.rawBody ?? EMPTY_BODY)) throw badSignature('the signature does not match the body');
    await claim();
  }

  private async claimOrRefuse(keyId: string, signatureId: string): Promise<void> {
    if ((await this.replays.claim(keyId, signatureId)) === 'replayed') throw badSignature('this webhook-id was already used (replay)');
  }
}
