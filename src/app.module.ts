import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ZodValidationPipe } from 'nestjs-zod';
import { HttpExceptionFilter } from './common/errors/http-exception.filter.js';
import { ConfigModule } from './config/index.js';
import { DatabaseModule } from './database/database.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { DOMAIN_MODULES } from './domain-modules.js';
import { StatementsModule } from './modules/statements/statements.module.js';
import { OperationsMetricsModule } from './modules/operations/operations-metrics.js';
import { TracingShutdown } from './common/tracing/tracing-shutdown.js';

/** The HTTP API: every domain module plus auth, health and the one exception filter. */
@Module({})
export class AppModule {
  static forRoot(envOverrides: Partial<Record<string, string>> = {}, extraModules: Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(envOverrides),
        DatabaseModule,
        AuditModule,
        HealthModule,
        AuthModule,
        ...DOMAIN_MODULES,
        // API only: the worker has no use for statements.
        StatementsModule,
        // API only: /metrics gauges of settlement, payout, queue, webhook and ledger state.
        OperationsMetricsModule,
        ...extraModules,
      ],
      providers: [
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_PIPE, useClass: ZodValidationPipe },
        TracingShutdown,
      ],
    };
  }
}
