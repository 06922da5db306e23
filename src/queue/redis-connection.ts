import { Redis, type RedisOptions } from 'ioredis';

const REDIS_CONNECT_TIMEOUT_MS = 2_000;

/**
 * Redis only carries queues, never the only copy of money data. BullMQ workers need
 * maxRetriesPerRequest null (blocking commands); producers fail fast instead of queueing forever.
 */
export function createRedis(url: string, role: 'worker' | 'producer' | 'probe'): Redis {
  const options: RedisOptions = {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role !== 'probe',
    lazyConnect: role === 'probe',
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  return new Redis(url, options);
}
