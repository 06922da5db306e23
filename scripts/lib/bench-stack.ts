// The local stack the demo, the benchmark and the reliability suite run against: Postgres and
// Redis up (started when down and we are root), a fresh build, a fresh database, a Redis database
// key prefix of our own, and the API and worker as child processes with logs in a run directory.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startDevchain, type Devchain } from './devchain.js';
import { migrate } from './migrate.js';
import { runLogged, sleep, type CleanupStack, type ManagedProcess } from './processes.js';
import { startApiProcess, startWorkerProcess } from './service-process.js';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;
export const POSTGRES_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
export const REDIS_BASE_URL = 'redis://127.0.0.1:6379';
const SERVICE_CHECK_TIMEOUT_MS = 2_000;
const SERVICE_START_WAIT_MS = 15_000;
// Sources whose change makes dist/ stale.
const BUILD_INPUTS = ['src', 'prisma/schema.prisma', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'web/src', 'web/index.html', 'web/vite.config.ts'];
const BUILD_OUTPUTS = ['dist/src/main.js', 'dist/src/worker.js', 'web/dist/index.html'];
const exec = promisify(execFile);

export type Log = (line: string) => void;

export function createRunDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

export function randomSuffix(bytes = 4): string {
  return randomBytes(bytes).toString('hex');
}

// ---- Postgres and Redis -------------------------------------------------------------------

async function postgresAnswers(): Promise<string | null> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: SERVICE_CHECK_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(): Promise<string | null> {
  const redis = new Redis(REDIS_BASE_URL, { lazyConnect: true, connectTimeout: SERVICE_CHECK_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG' ? null : 'unexpected PING answer';
  } catch (error) {
    return (error as Error).message;
  } finally {
    redis.disconnect();
  }
}

async function startPostgres(): Promise<void> {
  const versions = readdirSync('/etc/postgresql');
  if (versions.length === 0) throw new Error('no cluster under /etc/postgresql');
  await exec('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0]!, 'main', 'start']);
}

async function startRedis(): Promise<void> {
  await exec('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']);
}

async function waitUntil(probe: () => Promise<string | null>, timeoutMs: number): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  let problem = await probe();
  while (problem !== null && Date.now() < deadline) {
    await sleep(250);
    problem = await probe();
  }
  return problem;
}

/** Makes sure Postgres and Redis answer; starts them when down and we are root; else throws what is missing. */
export async function ensureLocalServices(log: Log): Promise<void> {
  const services = [
    { name: 'PostgreSQL (127.0.0.1:5432, user postgres)', probe: postgresAnswers, start: startPostgres },
    { name: 'Redis (127.0.0.1:6379)', probe: redisAnswers, start: startRedis },
  ];
  const missing: string[] = [];
  for (const service of services) {
    const problem = await service.probe();
    if (problem === null) continue;
    if (process.getuid?.() !== 0) {
      missing.push(`${service.name} is not reachable (${problem}) and this is not root, so it cannot be started here`);
      continue;
    }
    log(`${service.name} is down (${problem}); starting it`);
    try {
      await service.start();
    } catch (error) {
      missing.push(`${service.name} could not be started: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const still = await waitUntil(service.probe, SERVICE_START_WAIT_MS);
    if (still !== null) missing.push(`${service.name} still unreachable after start: ${still}`);
  }
  if (missing.length > 0) throw new Error(`local services missing:\n  - ${missing.join('\n  - ')}`);
}

// ---- Build --------------------------------------------------------------------------------

function newestMtimeMs(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    // The generated Prisma client is rewritten by every build; it is an output, not an input.
    if (entry === 'generated') continue;
    newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  }
  return newest;
}

/** Why dist/ needs a build, or null when it is up to date. */
export function buildStaleness(): string | null {
  const outputs = BUILD_OUTPUTS.map((p) => join(REPO_ROOT, p));
  if (outputs.some((p) => !existsSync(p))) return 'dist/ is missing';
  const builtMs = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const changedMs = Math.max(...BUILD_INPUTS.map((p) => newestMtimeMs(join(REPO_ROOT, p))));
  return changedMs > builtMs ? 'sources changed since the last build' : null;
}

export async function ensureBuild(runDir: string, log: Log, options: { skip?: boolean } = {}): Promise<void> {
  const reason = buildStaleness();
  if (reason === null) {
    log('build is up to date');
    return;
  }
  if (options.skip) {
    if (BUILD_OUTPUTS.some((p) => !existsSync(join(REPO_ROOT, p)))) throw new Error('--no-build given but dist/ is missing: run npm run build');
    log(`--no-build: using dist/ as it is (${reason})`);
    return;
  }
  const logPath = join(runDir, 'build.log');
  log(`building (${reason}): npm run build, log ${logPath}`);
  await runLogged('npm run build', 'npm', ['run', 'build'], { cwd: REPO_ROOT, logPath });
}

// ---- Fresh database and Redis database ------------------------------------------------------

export function databaseUrl(name: string): string {
  return `postgresql://postgres@127.0.0.1:5432/${name}`;
}

export async function createMigratedDatabase(name: string): Promise<string> {
  const url = databaseUrl(name);
  await migrate(url);
  return url;
}

export async function dropDatabase(name: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop database ${name}`);
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export interface QueueNamespace {
  redisUrl: string;
  /** QUEUE_PREFIX for the API and worker: every BullMQ key of the run starts with it. */
  prefix: string;
  /** Deletes the run's keys (`<prefix>:*`), so shared Redis keeps nothing of it. */
  release(): Promise<void>;
}

const KEY_SCAN_COUNT = 1000;

/**
 * A BullMQ key prefix of our own on the shared Redis: queues of concurrent runs (and of the
 * tests) never meet, so no other worker can take this run's jobs.
 */
export function queueNamespace(prefix: string): QueueNamespace {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) throw new Error(`invalid queue prefix ${prefix}`);
  return { redisUrl: REDIS_BASE_URL, prefix, release: () => deleteKeys(`${prefix}:*`) };
}

async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_BASE_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', KEY_SCAN_COUNT);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

// ---- The run's base: services, build, database, queue prefix, chain ----------------------------

export interface BaseStack {
  dbName: string;
  databaseUrl: string;
  queues: QueueNamespace;
  devchain: Devchain;
  adminKey: string;
  /**
   * What every API and worker of the run shares: the chain's variables, the database, Redis and
   * queue prefix, the admin key, and no settlement scheduler (a run settles when it says so).
   */
  env: Record<string, string>;
}

/**
 * Postgres and Redis up, dist/ built (unless noBuild), then a fresh migrated database
 * `ledger_<name>_<runId>`, the queue prefix `<name>_<runId>` and a local Anvil, each registered on
 * `cleanup` as soon as it exists (the database is kept instead of dropped with `keep`).
 */
export async function startBaseStack(o: { name: string; runId: string; runDir: string; cleanup: CleanupStack; keep: boolean; noBuild: boolean; log: Log }): Promise<BaseStack> {
  const { cleanup, keep, log } = o;
  await ensureLocalServices(log);
  log('Postgres and Redis are reachable');
  await ensureBuild(o.runDir, log, { skip: o.noBuild });
  const dbName = `ledger_${o.name}_${o.runId}`;
  const databaseUrl = await createMigratedDatabase(dbName);
  cleanup.add(keep ? `keep database ${dbName}` : `drop database ${dbName}`, () => (keep ? log(`kept database ${databaseUrl}`) : dropDatabase(dbName)));
  log(`database ${dbName} created and migrated`);
  const queues = queueNamespace(`${o.name}_${o.runId}`);
  cleanup.add(`delete Redis keys ${queues.prefix}:*`, () => queues.release());
  const devchain = await startDevchain();
  cleanup.add('stop anvil', () => devchain.stop());
  log(`anvil on ${devchain.rpcUrl}: test USDC ${devchain.usdcAddress}, BatchPayout ${devchain.payoutContractAddress}`);
  const adminKey = randomSuffix(24);
  const env: Record<string, string> = {
    ...devchain.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: queues.redisUrl,
    QUEUE_PREFIX: queues.prefix,
    ADMIN_API_KEY: adminKey,
    SETTLEMENT_SCHEDULER_ENABLED: 'false',
  };
  return { dbName, databaseUrl, queues, devchain, adminKey, env };
}

// ---- API and worker -------------------------------------------------------------------------

export interface ServiceOptions {
  runDir: string;
  env: Record<string, string>;
}

/**
 * Starts the API of dist/ on a free port with the production node flags (service-process.ts) and
 * waits for /health/ready. The flags (package.json start:prod) bound the old space, for the 300 MB
 * resident-memory target, and compile WebAssembly with the baseline compiler only: Prisma's query
 * compiler is a large wasm module whose optimizing recompile took 40-60 MiB more RSS in half the runs.
 */
export async function startApi(options: ServiceOptions & { name?: string; buildRoot?: string }): Promise<{ api: ManagedProcess; baseUrl: string }> {
  const name = options.name ?? 'api';
  const started = await startApiProcess({
    name,
    buildRoot: options.buildRoot ?? REPO_ROOT,
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...options.env },
    logPath: join(options.runDir, `${name}.log`),
  });
  return { api: started.process, baseUrl: started.baseUrl };
}

/** Starts the worker of dist/ (production node flags) and waits for its "worker started" log line. */
export function startWorker(options: ServiceOptions & { name?: string }): Promise<ManagedProcess> {
  const name = options.name ?? 'worker';
  return startWorkerProcess({
    name,
    buildRoot: REPO_ROOT,
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...options.env },
    logPath: join(options.runDir, `${name}.log`),
  });
}
