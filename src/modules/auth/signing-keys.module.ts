import { Module } from '@nestjs/common';
import { ApiKeysRepository } from './api-keys.repository.js';
import { SignatureReplayGuard } from './signature-replay-guard.js';
import { SignedJobVerifier } from './signed-job-verifier.js';
import { SigningKeysService } from './signing-keys.service.js';

/**
 * What signed gateway traffic needs on both entry points: the API's guard (HTTP requests) and the
 * worker's usage processor (queue jobs). No controller, no guard: safe to load in the worker.
 */
@Module({
  providers: [ApiKeysRepository, SigningKeysService, SignatureReplayGuard, SignedJobVerifier],
  exports: [ApiKeysRepository, SigningKeysService, SignatureReplayGuard, SignedJobVerifier],
})
export class SigningKeysModule {}
