import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DomainError } from '../../common/errors/index.js';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../common/signing/standard-webhooks.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';

/**
 * How long a signature id is remembered. A timestamp is accepted within the tolerance either side
 * of now, so a signature (timestamp t) can pass until t + tolerance <= now + 2 x tolerance: kept
 * that long (plus a second), no replay of it can pass.
 */
export const SIGNATURE_ID_TTL_MS = (2 * SIGNATURE_TOLERANCE_SECONDS + 1) * 1000;

export type ClaimResult = 'claimed' | 'replayed';
/** What was signed: an HTTP request (RFC 9421 nonce) or a queue job (Standard Webhooks id). */
export type ClaimScope = 'nonce' | 'job';

/**
 * Signature nonces and ids seen, shared by every API and worker replica through Redis (SET NX with a TTL).
 * When Redis cannot answer, signed requests are refused with 503 (fail closed): a signature
 * without replay protection could be replayed for 5 minutes, and a gateway retries a 503 with a
 * fresh signature anyway. Unsigned keys never reach this.
 */
@Injectable()
export class SignatureReplayGuard implements OnModuleDestroy {
  private readonly logger = new Logger('SignatureReplayGuard');
  private redis: RedisClient | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private client(): RedisClient {
    if (!this.redis) {
      this.redis = createRedis(this.config, 'guard');
      this.redis.on('error', () => undefined); // surfaced per request as 503, and by /health/ready
    }
    return this.redis;
  }

  /**
   * Records the id for this key; 'replayed' if it was seen within the window. `holder` tells a
   * retry of the same queue job (same holder: allowed) from a replay (another holder); an HTTP
   * request is its own holder, so any earlier use is a replay.
   */
  async claim(keyId: string, signatureId: string, holder: string = `request:${randomUUID()}`, scope: ClaimScope = 'job'): Promise<ClaimResult> {
    // Separate scopes: a request nonce and a job id that happen to be equal are not replays.
    const key = `${this.config.QUEUE_PREFIX}:signature-ids:${scope}:${keyId}:${signatureId}`;
    let previous: unknown;
    try {
      previous = await this.client().call('SET', key, holder, 'PX', String(SIGNATURE_ID_TTL_MS), 'NX', 'GET');
    } catch (error) {
      this.logger.warn(`signature replay check unavailable: ${(error as Error).message}`);
      throw new DomainError('unavailable', 'signed requests cannot be checked for replays right now (Redis is unavailable); retry with a fresh signature');
    }
    return previous === null || previous === holder ? 'claimed' : 'replayed';
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}
