import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { ZodValidationPipe } from 'nestjs-zod';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpExceptionFilter } from './common/errors/http-exception.filter.js';
import { ConfigModule, parseEnv } from './config/index.js';
import { DatabaseModule } from './database/database.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { DOMAIN_MODULES } from './domain-modules.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._\-]{1,128}$/;

function loggerModule(level: string): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      level,
      genReqId: (req: IncomingMessage) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
      },
      // Secrets never reach the logs.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.key', '*.private_key'], censor: '[redacted]' },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      serializers: { req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }) },
    },
  });
}

/** The HTTP API: every domain module plus auth, health and the one exception filter. */
@Module({})
export class AppModule {
  static forRoot(envOverrides: Partial<Record<string, string>> = {}, extraModules: Type[] = []): DynamicModule {
    const level = parseEnv({ ...process.env, ...envOverrides }).LOG_LEVEL;
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(envOverrides),
        loggerModule(level),
        DatabaseModule,
        AuditModule,
        HealthModule,
        AuthModule,
        ...DOMAIN_MODULES,
        ...extraModules,
      ],
      providers: [
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_PIPE, useClass: ZodValidationPipe },
      ],
    };
  }
}
