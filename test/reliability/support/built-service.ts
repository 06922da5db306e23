// The real API and worker as child processes (so they can be killed with -9), from a build of
// this tree. The build goes to a private output directory (node_modules/.cache/...), not dist/:
// several people build and run dist/ in this tree at the same time, and a half-written dist/
// under a running scenario (or ours under theirs) would make failures nobody can explain.
// It is the same `tsc -p tsconfig.build.json` as `npm run build`, only with another --outDir.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort, sleep, spawnService, waitForLog, waitForReady, type ManagedProcess } from '../../../scripts/lib/processes.js';

export const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const BUILD_ROOT = join(REPO_ROOT, 'node_modules/.cache/ledger-reliability');
export const BUILD_DIST = join(BUILD_ROOT, 'dist');
const BUILD_STAMP = join(BUILD_ROOT, 'built.stamp');
const BUILD_LOCK = join(BUILD_ROOT, 'build.lock');
const BUILD_LOCK_STALE_MS = 5 * 60_000;
const BUILD_INPUTS = ['src', 'prisma/schema.prisma', 'tsconfig.json', 'tsconfig.build.json'];
export const RELIABILITY_ADMIN_KEY = 'reliability-admin-key-0123456789abcdef';

function newestMtimeMs(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtimeMs(join(path, entry))), stat.mtimeMs);
}

async function withBuildLock<T>(fn: () => T): Promise<T> {
  mkdirSync(BUILD_ROOT, { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // Another reliability file is building; a lock older than a build is left over from a crash.
      if (Date.now() - statSync(BUILD_LOCK, { throwIfNoEntry: false })!.mtimeMs > BUILD_LOCK_STALE_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** Compiles src/ (with the generated Prisma client) when it changed since the last build. */
export async function ensureBuilt(): Promise<{ built: boolean; ms: number }> {
  const started = Date.now();
  return withBuildLock(() => {
    if (!existsSync(join(REPO_ROOT, 'src/generated/prisma/client.ts'))) {
      const gen = spawnSync('npm', ['run', 'prisma:generate', '--silent'], { cwd: REPO_ROOT, encoding: 'utf8' });
      if (gen.status !== 0) throw new Error(`prisma generate failed: ${gen.stderr || gen.stdout}`);
    }
    const stampMs = existsSync(BUILD_STAMP) ? statSync(BUILD_STAMP).mtimeMs : 0;
    const sourcesMs = Math.max(...BUILD_INPUTS.map((p) => newestMtimeMs(join(REPO_ROOT, p))));
    if (stampMs > sourcesMs && existsSync(join(BUILD_DIST, 'src/main.js'))) return { built: false, ms: Date.now() - started };
    const tsc = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', BUILD_DIST, '--incremental', '--tsBuildInfoFile', join(BUILD_ROOT, 'tsbuildinfo')],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    if (tsc.status !== 0) throw new Error(`build failed:\n${(tsc.stdout + tsc.stderr).slice(-4000)}`);
    // Under node_modules the package scope stops: say again that these files are ES modules.
    writeFileSync(join(BUILD_DIST, 'package.json'), '{"type":"module"}\n');
    writeFileSync(BUILD_STAMP, new Date().toISOString());
    return { built: true, ms: Date.now() - started };
  });
}

export interface ServiceEnv {
  DATABASE_URL: string;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  [key: string]: string;
}

function baseEnv(env: ServiceEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ADMIN_API_KEY: RELIABILITY_ADMIN_KEY,
    SETTLEMENT_SCHEDULER_ENABLED: 'false',
    ...env,
  };
}

// Each start gets its own log file (api.1.log, api.2.log, ...): restarts must not find the
// previous incarnation's "started" line.
const incarnations = new Map<string, number>();
function logPath(runDir: string, name: string): string {
  const n = (incarnations.get(`${runDir}/${name}`) ?? 0) + 1;
  incarnations.set(`${runDir}/${name}`, n);
  return join(runDir, `${name}.${n}.log`);
}

export interface ApiProcess {
  baseUrl: string;
  port: number;
  process: ManagedProcess;
}

/** `node <build>/src/main.js` on a free (or the given) port; resolves when /health answers. */
export async function startApi(input: { runDir: string; env: ServiceEnv; name?: string; port?: number; waitReady?: boolean }): Promise<ApiProcess> {
  const port = input.port ?? (await findFreePort());
  const name = input.name ?? 'api';
  const service = spawnService({
    name,
    command: process.execPath,
    args: [join(BUILD_DIST, 'src/main.js')],
    cwd: REPO_ROOT,
    env: { ...baseEnv(input.env), PORT: String(port) },
    logPath: logPath(input.runDir, name),
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // Liveness, not readiness: the outage scenarios restart the API while a dependency is down.
    await waitForReady(`${baseUrl}/${input.waitReady === false ? 'health' : 'health/ready'}`, service);
  } catch (error) {
    await service.kill9();
    throw error;
  }
  return { baseUrl, port, process: service };
}

/** `node <build>/src/worker.js`; resolves on its "worker started" log line. */
export async function startWorker(input: { runDir: string; env: ServiceEnv; name?: string }): Promise<ManagedProcess> {
  const name = input.name ?? 'worker';
  const service = spawnService({
    name,
    command: process.execPath,
    args: [join(BUILD_DIST, 'src/worker.js')],
    cwd: REPO_ROOT,
    // "worker started" is an info line; the worker logs no per-job lines at info.
    env: { ...baseEnv(input.env), LOG_LEVEL: 'info', ...input.env },
    logPath: logPath(input.runDir, name),
  });
  try {
    await waitForLog(service, /worker started/);
  } catch (error) {
    await service.kill9();
    throw error;
  }
  return service;
}
