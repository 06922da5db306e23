// The soak's whole stack, all of it its own so its faults touch nobody else: a Postgres cluster
// (initdb in a temporary directory, own port) holding the ledger's database and a LiteLLM
// spend-log database, a Redis (append-only, fsync always), Anvil with the contracts, webhook
// receivers on loopback, two APIs and two workers from dist/, and an SDK gateway child process
// with its outbox on disk. Every process is registered on the cleanup stack.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { buildStaleness, ensureBuild, REPO_ROOT } from '../lib/bench-stack.js';
import { startApiProcess, startWorkerProcess } from '../lib/service-process.js';
import { startDevchain, type Devchain } from '../lib/devchain.js';
import { migrate } from '../lib/migrate.js';
import { findFreePort, type CleanupStack, type ManagedProcess } from '../lib/processes.js';
import { startOwnPostgres, type OwnPostgres } from '../../test/reliability/support/own-postgres.js';
import { startOwnRedis, type OwnRedis } from '../../test/reliability/support/own-redis.js';
import { startSdkGateway, type SdkGateway } from './soak-sdk-gateway-process.js';
import { startWebhookReceivers, type WebhookReceivers } from './soak-webhook-receivers.js';

export const SOAK_ADMIN_KEY = 'soak-admin-key-0123456789abcdef0123';
const LEDGER_DB = 'ledger_soak';
const LITELLM_DB = 'litellm_soak';
const SPEND_LOGS_SQL = readFileSync(join(REPO_ROOT, 'test/fixtures/litellm/spend_logs.sql'), 'utf8');
/** The pull reads spend rows from this long before the soak started (older backdated rows are not pulled). */
const LITELLM_BACKFILL_FROM_MS = 400 * 24 * 3600_000;
const START_ATTEMPTS_MAX = 3;
/** A start on a loaded 2-core machine took more than the default minute. */
const READY_TIMEOUT_MS = 180_000;

export type Log = (line: string) => void;

export interface ServiceSlot {
  name: string;
  /** Current process; replaced by restart. */
  process: ManagedProcess;
  restart(): Promise<void>;
}

export interface ApiSlot extends ServiceSlot {
  baseUrl: string;
}

export interface SoakStack {
  runDir: string;
  databaseUrl: string;
  litellmUrl: string;
  postgres: OwnPostgres;
  redis: OwnRedis;
  devchain: Devchain;
  /** The first block after the setup: a reorg never reaches below it. */
  baseBlock: bigint;
  apis: ApiSlot[];
  workers: ServiceSlot[];
  sdk: SdkGateway;
  webhooks: WebhookReceivers;
  env: Record<string, string>;
  /** A pool on the soak's database for the invariants (reconnects after a Postgres restart). */
  db: pg.Pool;
  litellmDb: pg.Pool;
}

/** A start that timed out on a loaded machine is tried again: a dead slot would end the soak's faults. */
async function withStartRetries<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= START_ATTEMPTS_MAX) throw error;
    }
  }
}

function apiSlot(name: string, port: number, runDir: string, env: Record<string, string>): Promise<ApiSlot> {
  // Same port after every restart: the soak's clients and the SDK gateway keep their base URL.
  const launch = () =>
    withStartRetries(async () => (await startApiProcess({ name, port, buildRoot: REPO_ROOT, cwd: REPO_ROOT, env: { ...process.env, ...env }, logPath: join(runDir, `${name}.log`), readyTimeoutMs: READY_TIMEOUT_MS })).process);
  return launch().then((process) => {
    const slot: ApiSlot = {
      name,
      process,
      baseUrl: `http://127.0.0.1:${port}`,
      restart: async () => {
        await slot.process.kill9();
        slot.process = await launch();
      },
    };
    return slot;
  });
}

async function workerSlot(name: string, runDir: string, env: Record<string, string>): Promise<ServiceSlot> {
  const launch = () =>
    withStartRetries(() => startWorkerProcess({ name, buildRoot: REPO_ROOT, cwd: REPO_ROOT, env: { ...process.env, ...env }, logPath: join(runDir, `${name}.log`), readyTimeoutMs: READY_TIMEOUT_MS }));
  const slot: ServiceSlot = {
    name,
    process: await launch(),
    restart: async () => {
      await slot.process.kill9();
      slot.process = await launch();
    },
  };
  return slot;
}

export async function startSoakStack(o: { runDir: string; cleanup: CleanupStack; keep: boolean; log: Log }): Promise<SoakStack> {
  const { runDir, cleanup, log } = o;
  // dist/ is built when missing; a stale one is used as it is (say so): a rebuild takes minutes on
  // a busy machine, and CI builds right before the soak.
  const staleness = buildStaleness();
  if (staleness === 'dist/ is missing') await ensureBuild(runDir, log);
  else if (staleness !== null) log(`using dist/ as it is (${staleness}; npm run build to refresh)`);
  const postgres = await startOwnPostgres({ logDir: runDir });
  // --clean removes the cluster; without it the cluster is stopped and kept for inspection.
  cleanup.add(o.keep ? `stop own postgres (data kept in ${postgres.dataDir})` : 'destroy own postgres', () => (o.keep ? postgres.stop() : postgres.destroy()));
  const databaseUrl = postgres.url(LEDGER_DB);
  await migrate(databaseUrl);
  const litellmUrl = postgres.url(LITELLM_DB);
  const admin = new pg.Client({ connectionString: postgres.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${LITELLM_DB}`);
  await admin.end();
  const litellmSetup = new pg.Client({ connectionString: litellmUrl });
  await litellmSetup.connect();
  await litellmSetup.query(SPEND_LOGS_SQL);
  await litellmSetup.end();
  log(`own postgres on port ${postgres.port}: ${databaseUrl}`);

  const redis = await startOwnRedis({ logDir: runDir, persistence: 'aof' });
  cleanup.add('destroy own redis', () => redis.destroy());
  log(`own redis on ${redis.url}`);

  const devchain = await startDevchain();
  cleanup.add('stop anvil', () => devchain.stop());
  const baseBlock = await blockNumber(devchain.rpcUrl);
  log(`anvil on ${devchain.rpcUrl} (contracts deployed, block ${baseBlock})`);

  const webhooks = await startWebhookReceivers();
  cleanup.add('stop webhook receivers', () => webhooks.close());

  const env: Record<string, string> = {
    ...devchain.env,
    // Not 'production': production takes https webhook URLs only, and the receivers are loopback
    // http. Nothing else reads NODE_ENV (config.schema.ts: the admin key check).
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: 'soak',
    ADMIN_API_KEY: SOAK_ADMIN_KEY,
    SETTLEMENT_SCHEDULER_ENABLED: 'false',
    SETTLEMENT_CONFIRMATIONS: '1',
    SETTLEMENT_MIN_PAYOUT_USD: '0.01',
    SETTLEMENT_APPROVAL_THRESHOLD_USD: '3',
    SETTLEMENT_RECIPIENTS_PER_TX: '3',
    PAYOUT_ADDRESS_COOLDOWN_HOURS: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '500',
    LITELLM_DATABASE_URL: litellmUrl,
    LITELLM_BACKFILL_SECONDS: '2',
    // The overlap and the late window are the service's defaults: the clock step writes spend rows
    // up to an hour behind the checkpoint's overlap, which only the late sweep finds (the invariant
    // allows its documented number of runs, soak-litellm-pull.ts).
    LITELLM_BACKFILL_FROM: new Date(Date.now() - LITELLM_BACKFILL_FROM_MS).toISOString(),
  };
  // One after the other: each spends its start compiling, and side by side on a busy 2-core
  // machine they passed the 60 s readiness wait.
  const apis: ApiSlot[] = [];
  for (const name of ['api-1', 'api-2']) {
    const slot = await apiSlot(name, await findFreePort(), runDir, env);
    cleanup.add(`stop ${name}`, () => slot.process.kill9());
    apis.push(slot);
  }
  const workers: ServiceSlot[] = [];
  for (const name of ['worker-1', 'worker-2']) {
    const slot = await workerSlot(name, runDir, env);
    cleanup.add(`stop ${name}`, () => slot.process.kill9());
    workers.push(slot);
  }
  log(`APIs ${apis.map((a) => a.baseUrl).join(', ')}; 2 workers`);

  const sdk = await startSdkGateway({ runDir, apiBaseUrl: apis[0]!.baseUrl, adminKey: SOAK_ADMIN_KEY });
  cleanup.add('stop sdk gateway', () => sdk.stop());
  log(`SDK gateway on ${sdk.baseUrl}, outbox ${sdk.outboxDir}`);

  const db = new pg.Pool({ connectionString: databaseUrl, max: 3, connectionTimeoutMillis: 5_000 });
  db.on('error', () => undefined);
  const litellmDb = new pg.Pool({ connectionString: litellmUrl, max: 2, connectionTimeoutMillis: 5_000 });
  litellmDb.on('error', () => undefined);
  cleanup.add('close soak pools', async () => {
    await db.end().catch(() => undefined);
    await litellmDb.end().catch(() => undefined);
  });
  return { runDir, databaseUrl, litellmUrl, postgres, redis, devchain, baseBlock, apis, workers, sdk, webhooks, env, db, litellmDb };
}

export async function blockNumber(rpcUrl: string): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}
