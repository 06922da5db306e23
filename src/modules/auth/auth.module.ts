import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import { AuthGuard } from './auth.guard.js';
import { AuthService } from './auth.service.js';
import { RateLimiter } from './rate-limiter.js';
import { SharedLimitsStore } from './shared-limits.store.js';
import { SignedRequestVerifier } from './signed-request-verifier.js';
import { SigningKeysModule } from './signing-keys.module.js';
import { WhoamiController } from './whoami.controller.js';

@Module({
  imports: [SigningKeysModule],
  controllers: [AuthController, WhoamiController],
  providers: [
    AuthService,
    SignedRequestVerifier,
    AuthFailureLimiter,
    SharedLimitsStore,
    RateLimiter,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [AuthService],
})
export class AuthModule {}
