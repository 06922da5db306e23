// The real API and worker as child processes (so they can be killed with -9), built from the
// COMMITTED tree (HEAD, or RELIABILITY_COMMIT) into a private directory under node_modules/.cache,
// not from the working tree into dist/: several people edit, build and run this working tree at
// the same time, and a half-edited file of theirs (or a dist/ rebuilt under a running scenario)
// would make failures nobody can explain. It is the same `tsc -p tsconfig.build.json` as
// `npm run build`, over `git archive <commit>`, and each result names the commit it measured.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep, type ManagedProcess } from '../../../scripts/lib/processes.js';
import { startApiProcess, startWorkerProcess } from '../../../scripts/lib/service-process.js';

export const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const BUILD_ROOT = join(REPO_ROOT, 'node_modules/.cache/ledger-reliability');
/** The extracted tree; its package.json says "type": "module" (the scope stops at node_modules). */
const BUILD_TREE = join(BUILD_ROOT, 'tree');
export const BUILD_DIST = join(BUILD_TREE, 'dist');
const BUILD_STAMP = join(BUILD_ROOT, 'built-commit');
const BUILD_LOCK = join(BUILD_ROOT, 'build.lock');
const BUILD_LOCK_STALE_MS = 5 * 60_000;
const ARCHIVED_PATHS = ['src', 'prisma', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
export const RELIABILITY_ADMIN_KEY = 'reliability-admin-key-0123456789abcdef';

async function withBuildLock<T>(fn: () => T): Promise<T> {
  mkdirSync(BUILD_ROOT, { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // Another reliability file is building; a lock older than a build is left over from a crash.
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > BUILD_LOCK_STALE_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

/** Builds the commit (default HEAD) unless that exact commit is already built. */
export async function ensureBuilt(): Promise<{ commit: string; built: boolean; ms: number }> {
  const started = Date.now();
  const commit = git(['rev-parse', process.env.RELIABILITY_COMMIT ?? 'HEAD']);
  return withBuildLock(() => {
    const builtCommit = existsSync(BUILD_STAMP) ? readFileSync(BUILD_STAMP, 'utf8').trim() : null;
    if (builtCommit === commit && existsSync(join(BUILD_DIST, 'src/main.js'))) return { commit, built: false, ms: Date.now() - started };
    rmSync(join(BUILD_TREE, 'src'), { recursive: true, force: true });
    mkdirSync(BUILD_TREE, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git archive --format=tar ${commit} ${ARCHIVED_PATHS.join(' ')} | tar -x -C "${BUILD_TREE}"`], { cwd: REPO_ROOT, encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`git archive ${commit} failed: ${tar.stderr}`);
    // The Prisma client is generated, not committed: the working tree's (same schema, in practice).
    if (!existsSync(join(REPO_ROOT, 'src/generated/prisma/client.ts'))) {
      const gen = spawnSync('npm', ['run', 'prisma:generate', '--silent'], { cwd: REPO_ROOT, encoding: 'utf8' });
      if (gen.status !== 0) throw new Error(`prisma generate failed: ${gen.stderr || gen.stdout}`);
    }
    cpSync(join(REPO_ROOT, 'src/generated'), join(BUILD_TREE, 'src/generated'), { recursive: true });
    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', join(BUILD_ROOT, 'tsbuildinfo')],
      { cwd: BUILD_TREE, encoding: 'utf8' },
    );
    if (tsc.status !== 0) throw new Error(`build of ${commit} failed:\n${(tsc.stdout + tsc.stderr).slice(-4000)}`);
    writeFileSync(BUILD_STAMP, commit);
    return { commit, built: true, ms: Date.now() - started };
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

/**
 * A service that ends without the test asking (crash, signal from outside) is written to
 * <runDir>/unexpected-exits.log and stderr with its exit code or signal, so a failure downstream
 * ("connection refused") can be traced to it.
 */
function reportUnexpectedExit(service: ManagedProcess, runDir: string): ManagedProcess {
  let expected = false;
  const { kill9, stop } = service;
  service.kill9 = () => {
    expected = true;
    return kill9();
  };
  service.stop = (graceMs) => {
    expected = true;
    return stop(graceMs);
  };
  void service.exited.then((info) => {
    if (expected) return;
    const line = `${new Date().toISOString()} ${service.spec.name} (pid ${service.pid}) exited on its own: ${JSON.stringify(info)}\n`;
    appendFileSync(join(runDir, 'unexpected-exits.log'), line);
    process.stderr.write(`[reliability] ${line}`);
  });
  return service;
}

export interface ApiProcess {
  baseUrl: string;
  port: number;
  process: ManagedProcess;
}

/**
 * The built API with the production node flags (package.json start:prod of the built commit) on a
 * free (or the given) port; resolves when /health/ready (or /health) answers.
 */
export async function startApi(input: { runDir: string; env: ServiceEnv; name?: string; port?: number; waitReady?: boolean }): Promise<ApiProcess> {
  const name = input.name ?? 'api';
  const started = await startApiProcess({
    name,
    buildRoot: BUILD_TREE, // the commit's package.json gives the flags
    cwd: REPO_ROOT,
    env: baseEnv(input.env),
    logPath: logPath(input.runDir, name),
    port: input.port,
    // Liveness, not readiness: the outage scenarios restart the API while a dependency is down.
    readyPath: input.waitReady === false ? 'health' : 'health/ready',
    onSpawn: (service) => reportUnexpectedExit(service, input.runDir),
  });
  return { baseUrl: started.baseUrl, port: started.port, process: started.process };
}

/** The built worker with the production node flags (start:worker); resolves on its "worker started" line. */
export function startWorker(input: { runDir: string; env: ServiceEnv; name?: string }): Promise<ManagedProcess> {
  const name = input.name ?? 'worker';
  return startWorkerProcess({
    name,
    buildRoot: BUILD_TREE, // the commit's package.json gives the flags
    cwd: REPO_ROOT,
    // "worker started" is an info line; the worker logs no per-job lines at info.
    env: { ...baseEnv(input.env), LOG_LEVEL: 'info', ...input.env },
    logPath: logPath(input.runDir, name),
    onSpawn: (service) => reportUnexpectedExit(service, input.runDir),
  });
}
