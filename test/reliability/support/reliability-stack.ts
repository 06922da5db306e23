// The stack every reliability scenario runs against: the built service (API replicas and the
// worker as child processes), a database (a fresh one on the shared Postgres, or a Postgres
// cluster of the scenario's own that it may stop and crash), Redis (the shared one, or an own
// instance it may freeze and crash), the usage queue as a gateway publishes to it, and an admin
// client with the oracle's prices, contributors and credits seeded. Every process and
// connection it opens is closed by the run's cleanup, also when a test fails.
import { randomBytes } from 'node:crypto';
import { migrate } from '../../../scripts/lib/migrate.js';
import type { ManagedProcess } from '../../../scripts/lib/processes.js';
import { createTestDatabase } from '../../support/test-db.js';
import { ensureBuilt, RELIABILITY_ADMIN_KEY, startApi, startWorker, type ApiProcess, type ServiceEnv } from './built-service.js';
import { AttemptLog, seedOracleBilling, type Client } from './http-client.js';
import { startOwnPostgres, type OwnPostgres } from './own-postgres.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';
import { queueClient, type QueueClient } from './queue-client.js';
import type { ScenarioRun } from './scenario-run.js';

export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The database created in an own Postgres cluster (migrated by the stack). */
const OWN_POSTGRES_DATABASE = 'ledger_rel';

export interface ReliabilityStackOptions {
  /** Label of the fresh database on the shared Postgres (not used with ownPostgres). */
  databaseLabel?: string;
  /** A Postgres cluster of the scenario's own, so it can stop and crash it. */
  ownPostgres?: boolean;
  /** A Redis of the scenario's own with this persistence, so it can freeze and crash it. */
  ownRedis?: 'aof' | 'none';
  /** Default: a random `rel-…` prefix, so runs on the shared Redis never see each other's jobs. */
  queuePrefix?: string;
  /** Merged into the services' environment (chain settings, settlement limits). */
  env?: Record<string, string>;
  /** API replicas started, by name; stack.api is the first. Default ['api']. */
  apiNames?: string[];
  /** Start the worker with the stack (default true); false: the scenario starts it when it needs. */
  worker?: boolean;
  /** Open the usage queue client (default true). */
  usageQueue?: boolean;
  /** Seed the oracle's price, contributors and user credits through the admin API (default true). */
  seedOracleBilling?: boolean;
}

export interface ReliabilityStack {
  databaseUrl: string;
  /** What the services were started with (a scenario may restart one with it). */
  env: ServiceEnv;
  /** The first API replica; replaced by startApi. */
  api: ApiProcess;
  /** Every API replica started with the stack, in apiNames order. */
  apis: ApiProcess[];
  /** The latest worker started (null until one is, with worker: false). */
  worker: ManagedProcess;
  /** Admin key; its base URL follows stack.api across restarts. */
  admin: Client;
  /** Starts the API again (e.g. on the port of the one just killed) as stack.api. */
  startApi(input?: { port?: number; name?: string }): Promise<ApiProcess>;
  /** Starts a worker as stack.worker; env is merged over the stack's. */
  startWorker(input?: { name?: string; env?: Record<string, string> }): Promise<ManagedProcess>;
}

/** The typed extras an option turns on: an own Postgres or Redis handle, the usage queue. */
export type ReliabilityStackFor<O extends ReliabilityStackOptions> = ReliabilityStack &
  (O extends { ownPostgres: true } ? { ownPostgres: OwnPostgres } : unknown) &
  (O extends { ownRedis: 'aof' | 'none' } ? { ownRedis: OwnRedis } : unknown) &
  (O extends { usageQueue: false } ? unknown : { queue: QueueClient });

export async function startReliabilityStack<const O extends ReliabilityStackOptions>(run: ScenarioRun, options: O): Promise<ReliabilityStackFor<O>> {
  run.record('build', await ensureBuilt());
  const extras: { ownPostgres?: OwnPostgres; ownRedis?: OwnRedis; queue?: QueueClient } = {};
  let databaseUrl: string;
  if (options.ownPostgres) {
    const ownPostgres = await startOwnPostgres({ logDir: run.runDir });
    run.onCleanup('destroy own postgres', () => ownPostgres.destroy());
    databaseUrl = ownPostgres.url(OWN_POSTGRES_DATABASE);
    await migrate(databaseUrl);
    extras.ownPostgres = ownPostgres;
  } else {
    const db = await createTestDatabase(options.databaseLabel ?? 'rel');
    run.onCleanup('drop database', db.drop);
    databaseUrl = db.url;
  }
  let redisUrl = SHARED_REDIS_URL;
  if (options.ownRedis) {
    const ownRedis = await startOwnRedis({ logDir: run.runDir, persistence: options.ownRedis });
    run.onCleanup('destroy own redis', () => ownRedis.destroy());
    redisUrl = ownRedis.url;
    extras.ownRedis = ownRedis;
  }
  const env: ServiceEnv = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: options.queuePrefix ?? `rel-${randomBytes(4).toString('hex')}`,
    ...options.env,
  };

  const launchApi = async (name: string, port?: number) => {
    const api = await startApi({ runDir: run.runDir, env, name, port });
    run.onCleanup(`stop ${name}`, () => api.process.kill9());
    return api;
  };
  const stack: ReliabilityStack = {
    databaseUrl,
    env,
    api: null as unknown as ApiProcess,
    apis: [],
    worker: null as unknown as ManagedProcess,
    admin: { baseUrl: () => stack.api.baseUrl, key: RELIABILITY_ADMIN_KEY, log: new AttemptLog() },
    startApi: async ({ port, name = 'api' } = {}) => (stack.api = await launchApi(name, port)),
    startWorker: async ({ name = 'worker', env: extraEnv = {} } = {}) => {
      const worker = await startWorker({ runDir: run.runDir, env: { ...env, ...extraEnv }, name });
      run.onCleanup(`stop ${name}`, () => worker.kill9());
      stack.worker = worker;
      return worker;
    },
  };
  for (const name of options.apiNames ?? ['api']) stack.apis.push(await launchApi(name));
  stack.api = stack.apis[0]!;
  if (options.worker !== false) await stack.startWorker();
  if (options.usageQueue !== false) {
    const queue = queueClient({ redisUrl, prefix: env.QUEUE_PREFIX });
    run.onCleanup('obliterate queues', () => queue.close());
    extras.queue = queue;
  }
  if (options.seedOracleBilling !== false) await seedOracleBilling(stack.admin);
  return Object.assign(stack, extras) as ReliabilityStackFor<O>;
}
