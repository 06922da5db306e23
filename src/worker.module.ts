import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { APP_CONFIG, ConfigModule, type AppConfig } from './config/index.js';
import { DatabaseModule } from './database/database.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { DOMAIN_MODULES } from './domain-modules.js';
import { WORKER_MODULES } from './worker-modules.js';
import { JobHandlersCheck } from './queue/job-handlers.check.js';
import { createRedis } from './queue/redis-connection.js';
import { queueTelemetry } from './common/tracing/tracing.js';
import { TracingShutdown } from './common/tracing/tracing-shutdown.js';
import type { Cluster } from 'ioredis';

/** Cluster clients this process made for BullMQ: BullMQ does not close a client it was given. */
const clusterClients = new Set<Cluster>();

function clusterConnection(config: AppConfig): Cluster {
  const client = createRedis(config, 'worker') as Cluster;
  client.on('error', () => undefined); // each worker logs its own connection errors (JobProcessor)
  clusterClients.add(client);
  return client;
}

/** The worker: the same domain modules as the API, plus BullMQ processors and schedulers. */
@Module({})
export class WorkerModule implements OnApplicationShutdown {
  /** After every module's destroy hook (the BullMQ workers are closed by then). */
  onApplicationShutdown(): void {
    for (const client of clusterClients) client.disconnect();
    clusterClients.clear();
  }

  static forRoot(envOverrides: Partial<Record<string, string>> = {}): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(envOverrides),
        DatabaseModule,
        AuditModule,
        HealthModule,
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            // A Redis Cluster is passed as a client (BullMQ duplicates it per blocking worker); a
            // single Redis as options, so BullMQ owns and closes its connections.
            connection: config.REDIS_CLUSTER_NODES ? clusterConnection(config) : { url: config.REDIS_URL, maxRetriesPerRequest: null },
            prefix: config.QUEUE_PREFIX,
            // bullmq-otel when tracing is on: a job's span continues the producer's trace.
            telemetry: queueTelemetry(),
          }),
        }),
        DiscoveryModule,
        ...DOMAIN_MODULES,
        ...WORKER_MODULES,
      ],
      // Refuses to start when a job has no handler or two (see src/queue/jobs.ts).
      providers: [JobHandlersCheck, TracingShutdown],
    };
  }
}
