import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';

const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** A request-path command (signature replay ids) waits at most this long, queued or sent. */
const GUARD_COMMAND_TIMEOUT_MS = 1_000;
/** Shared rate limits: a slow answer falls back to the process's own limits instead of waiting. */
const LIMITS_COMMAND_TIMEOUT_MS = 250;

export type RedisRole = 'worker' | 'producer' | 'probe' | 'guard' | 'limits';
/** A single Redis or a Redis Cluster: BullMQ, the guards and the limits take either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: REDIS_CLUSTER_NODES (host:port,...) wins over REDIS_URL. */
export interface RedisTarget {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: readonly ClusterNode[];
}

/**
 * Redis only carries queues, limits and replay ids, never the only copy of money data. BullMQ
 * workers need maxRetriesPerRequest null (blocking commands); producers fail fast instead of
 * queueing forever; a guard (a check on the request path) also bounds each command's wait, so an
 * outage is an answer within a second rather than a request hanging until Redis returns; the
 * limits never queue a command while disconnected (the caller falls back at once).
 */
export function redisOptions(role: RedisRole): RedisOptions {
  const commandTimeout = role === 'guard' ? GUARD_COMMAND_TIMEOUT_MS : role === 'limits' ? LIMITS_COMMAND_TIMEOUT_MS : undefined;
  return {
    ...(commandTimeout ? { commandTimeout } : {}),
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: role === 'worker' ? null : role === 'limits' ? 0 : 1,
    enableOfflineQueue: role !== 'probe' && role !== 'limits',
    lazyConnect: role === 'probe',
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
}

export function createRedis(target: RedisTarget, role: RedisRole): RedisClient {
  const options = redisOptions(role);
  if (target.REDIS_CLUSTER_NODES && target.REDIS_CLUSTER_NODES.length > 0) {
    return new Cluster([...target.REDIS_CLUSTER_NODES], {
      redisOptions: options,
      enableOfflineQueue: options.enableOfflineQueue,
      lazyConnect: options.lazyConnect,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      // BullMQ's blocking commands and MULTI need every key of a queue in one slot: the queue
      // prefix carries a hash tag ({ledger}), checked at start-up (config.schema.ts).
      slotsRefreshTimeout: REDIS_CONNECT_TIMEOUT_MS,
    });
  }
  return new Redis(target.REDIS_URL, options);
}
