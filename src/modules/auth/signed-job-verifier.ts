import { Injectable } from '@nestjs/common';
import { DomainError } from '../../common/errors/index.js';
import { bodyMatchesSignature, checkSignatureHeaders } from '../../common/signing/standard-webhooks.js';
import type { SignedUsageJob } from '../../queue/signed-usage-job.js';
import { SignatureReplayGuard } from './signature-replay-guard.js';
import { SigningKeysService } from './signing-keys.service.js';

const badSignature = (reason: string) => new DomainError('bad_signature', `job signature refused: ${reason}`);

/**
 * Verifies a signed queue job the way the API verifies a signed request. The timestamp is held
 * against the job's enqueue time (a job may wait in the queue, or be retried, for longer than 5
 * minutes), and the id is claimed with the job id as holder, so a retry of the same job passes
 * while the same signature in another job is a replay. Replays after the id window are stopped by
 * the event_id idempotency every usage write has.
 */
@Injectable()
export class SignedJobVerifier {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly replays: SignatureReplayGuard,
  ) {}

  /** The signed payload's text once verified; throws bad_signature otherwise. */
  async verify(signed: SignedUsageJob['signed'], job: { id: string; timestampMs: number }): Promise<string> {
    const key = await this.keys.find(signed.key_id);
    if (!key) throw badSignature('key_id is not an active signed gateway key');
    const headers = { 'webhook-id': signed.webhook_id, 'webhook-timestamp': signed.webhook_timestamp, 'webhook-signature': signed.webhook_signature };
    const check = checkSignatureHeaders(headers, Math.floor(job.timestampMs / 1000));
    if (!check.ok) throw badSignature(check.reason);
    if (!bodyMatchesSignature(key, check, Buffer.from(signed.body, 'utf8'))) throw badSignature('the signature does not match the body');
    if ((await this.replays.claim(signed.key_id, check.id, `job:${job.id}`)) === 'replayed') throw badSignature('this webhook-id was already used by another job (replay)');
    return signed.body;
  }
}
