import { Redis, type RedisOptions } from 'ioredis';

const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** A request-path command (signature replay ids) waits at most this long, queued or sent. */
const GUARD_COMMAND_TIMEOUT_MS = 1_000;

/**
 * Redis only carries queues, never the only copy of money data. BullMQ workers need
 * maxRetriesPerRequest null (blocking commands); producers fail fast instead of queueing forever;
 * a guard (a check on the request path) also bounds each command's wait, so an outage is an
 * answer within a second rather than a request hanging until Redis returns.
 */
export function createRedis(url: string, role: 'worker' | 'producer' | 'probe' | 'guard'): Redis {
  const options: RedisOptions = {
    ...(role === 'guard' ? { commandTimeout: GUARD_COMMAND_TIMEOUT_MS } : {}),
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role !== 'probe',
    lazyConnect: role === 'probe',
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  return new Redis(url, options);
}
