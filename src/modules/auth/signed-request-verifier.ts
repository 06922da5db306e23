import { Injectable } from '@nestjs/common';
import { createHash, type Hash } from 'node:crypto';
import { DomainError } from '../../common/errors/index.js';
import { RAW_BODY_ROUTES } from '../../common/http/body-parsers.js';
import { bodyDigestMatches, verifyRequestSignature } from '../../common/signing/http-message-signature.js';
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
 * The body half of a signed request to the SSE route, whose body is read after the guard: the
 * signature over method, path, query and Content-Digest was verified in the guard; the route
 * feeds every chunk here, then completes before it stores anything.
 */
export class StreamedSignature {
  private readonly hash: Hash = createHash('sha256');

  constructor(
    private readonly expectedDigest: Buffer,
    private readonly claim: () => Promise<void>,
  ) {}

  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }

  /** Throws bad_signature unless the whole body matched Content-Digest; then claims the nonce. */
  async complete(): Promise<void> {
    if (!bodyDigestMatches(this.expectedDigest, this.hash.digest())) throw badSignature('Content-Digest does not match the body');
    await this.claim();
  }
}

/** The streamed check the guard left on a signed request to the SSE route (null: unsigned key). */
export function streamedSignatureOf(request: unknown): StreamedSignature | null {
  return (request as AuthedRequest).streamedSignature ?? null;
}

/**
 * Checks a request made with a signed gateway key (api.md "Signed gateway requests"): an RFC 9421
 * signature over method, path, query and Content-Digest with `created` within 5 minutes, the body's
 * SHA-256 equal to Content-Digest, and a nonce not seen before (Redis, shared by replicas). Runs in
 * the auth guard, before the handler: a refused request stores nothing.
 */
@Injectable()
export class SignedRequestVerifier {
  nowMs: () => number = Date.now;

  constructor(private readonly replays: SignatureReplayGuard) {}

  async verify(request: AuthedRequest, keyId: string, signingKey: Buffer): Promise<void> {
    const check = await verifyRequestSignature({ method: request.method, target: request.url, headers: request.headers }, { keyId, key: signingKey }, this.nowMs());
    if (!check.ok) throw badSignature(check.reason);
    const route = request.routeOptions.url ?? '';
    const claim = () => this.claimOrRefuse(keyId, check.nonce);
    if (RAW_BODY_ROUTES.has(route)) {
      // Only the SSE route streams its body through a StreamedSignature; no other raw route is a
      // gateway's, and one that did not check would let an unverified body through.
      if (route !== SIGNED_STREAM_ROUTE) throw badSignature('this route does not take signed requests');
      request.streamedSignature = new StreamedSignature(check.bodyDigest, claim);
      return;
    }
    const bodyDigest = createHash('sha256').update(request.rawBody ?? EMPTY_BODY).digest();
    if (!bodyDigestMatches(check.bodyDigest, bodyDigest)) throw badSignature('Content-Digest does not match the body');
    await claim();
  }

  private async claimOrRefuse(keyId: string, nonce: string): Promise<void> {
    if ((await this.replays.claim(keyId, nonce, undefined, 'nonce')) === 'replayed') throw badSignature('this nonce was already used (replay)');
  }
}
