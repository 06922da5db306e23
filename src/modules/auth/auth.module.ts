import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeysRepository } from './api-keys.repository.js';
import { AuthController } from './auth.controller.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import { AuthGuard } from './auth.guard.js';
import { AuthService } from './auth.service.js';
import { RateLimiter } from './rate-limiter.js';
import { WhoamiController } from './whoami.controller.js';

@Module({
  controllers: [AuthController, WhoamiController],
  providers: [
    ApiKeysRepository,
    AuthService,
    AuthFailureLimiter,
    RateLimiter,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [AuthService],
})
export class AuthModule {}
