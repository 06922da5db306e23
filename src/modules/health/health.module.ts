import { Global, Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';
import { HealthController } from './health.controller.js';
import { MetricsService } from './metrics.service.js';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness.js';
import { CHAIN_READINESS, type OptionalReadinessCheck } from './chain-readiness.js';

const REDIS_PROBE = Symbol('REDIS_PROBE');

@Global()
@Module({
  controllers: [HealthController],
  providers: [
    MetricsService,
    {
      provide: REDIS_PROBE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const redis = createRedis(config, 'probe');
        redis.on('error', () => undefined); // reported through /health/ready, not as crashes
        return redis;
      },
    },
    { provide: CHAIN_READINESS, useValue: { check: null } satisfies OptionalReadinessCheck },
    {
      provide: READINESS_CHECKS,
      inject: [DatabaseService, REDIS_PROBE, CHAIN_READINESS],
      useFactory: (db: DatabaseService, redis: RedisClient, chain: OptionalReadinessCheck): ReadinessCheck[] => [
        { name: 'postgres', check: () => db.ping() },
        {
          name: 'redis',
          check: async () => {
            if (redis.status === 'wait' || redis.status === 'end') await redis.connect().catch(() => undefined);
            await redis.ping();
          },
        },
        // Without a chain there is nothing to probe: `disabled`, never a pretended `up`.
        { name: 'rpc', disabled: () => chain.check === null, check: async () => chain.check?.() },
        ...(db.hasReplica ? [{ name: 'postgres_replica', required: false, check: async () => ({ lag_seconds: await db.replicaLagSeconds() }) }] : []),
      ],
    },
  ],
  exports: [MetricsService, CHAIN_READINESS],
})
export class HealthModule implements OnModuleDestroy {
  constructor(
    @Inject(REDIS_PROBE) private readonly redis: RedisClient,
    db: DatabaseService,
    metrics: MetricsService,
  ) {
    // Read on each scrape; -1 when the replica cannot be asked (down or unreachable); 0 without a
    // replica (reads go to the primary), so dashboards and alerts always find the series.
    new Gauge({
      name: 'database_replica_lag_seconds',
      help: 'How far the read replica (READ_DATABASE_URL) is behind the primary; -1: unreachable',
      registers: [metrics.registry],
      async collect() {
        this.set(db.hasReplica ? await db.replicaLagSeconds().catch(() => -1) : 0);
      },
    });
  }

  onModuleDestroy() {
    this.redis.disconnect();
  }
}
