import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ApiKeysRepository } from './api-keys.repository.js';
import { AuthController } from './auth.controller.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import { AuthGuard } from './auth.guard.js';
import { AuthService } from './auth.service.js';
import { RateLimitInterceptor } from './rate-limit.interceptor.js';

@Module({
  controllers: [AuthController],
  providers: [
    ApiKeysRepository,
    AuthService,
    AuthFailureLimiter,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor },
  ],
  exports: [AuthService],
})
export class AuthModule {}
