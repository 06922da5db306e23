// The one way the demo, the benchmark and the reliability suite start the built API and worker:
// `node <production flags> <dist>/src/main.js | worker.js`, the flags read from package.json's
// start:prod / start:worker, so a test or a measurement never runs under other flags than
// production (the reliability starter once lost --liftoff-only and the heap cap).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort, spawnService, waitForLog, waitForReady, type ManagedProcess } from './processes.js';

export type ServiceKind = 'api' | 'worker';
const START_SCRIPTS: Record<ServiceKind, { script: string; entry: string }> = {
  api: { script: 'start:prod', entry: 'dist/src/main.js' },
  worker: { script: 'start:worker', entry: 'dist/src/worker.js' },
};

/**
 * The node flags of `npm run start:prod` (api) or `start:worker` (worker) in `packageJsonPath`:
 * the words between `node` and the entry file, which must be the script's whole command.
 */
export function productionNodeFlags(kind: ServiceKind, packageJsonPath: string): string[] {
  const { script, entry } = START_SCRIPTS[kind];
  const command = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: Record<string, string> }).scripts?.[script];
  const words = command?.trim().split(/\s+/) ?? [];
  const flags = words.slice(1, -1);
  if (words[0] !== 'node' || words.at(-1) !== entry || !flags.every((f) => f.startsWith('--'))) {
    throw new Error(`${packageJsonPath}: scripts.${script} must be "node [--flag ...] ${entry}", found ${JSON.stringify(command)}`);
  }
  return flags;
}

export interface ServiceStart {
  name: string;
  /** Root of the build to run: holds dist/ and the package.json whose start scripts give the flags. */
  buildRoot: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  logPath: string;
  /** Called as soon as the process exists (before it is ready), e.g. to watch for unexpected exits. */
  onSpawn?: (service: ManagedProcess) => void;
  /** How long to wait until it is ready (default READY_TIMEOUT_MS): the soak's starts on a loaded machine take longer. */
  readyTimeoutMs?: number;
}

/**
 * Set in the environment of a bench run: every API process it starts writes a V8 CPU profile
 * (node --cpu-prof, one .cpuprofile per process, on exit) into this directory. Node refuses
 * --cpu-prof in NODE_OPTIONS, hence a flag of the starter.
 */
export const CPU_PROFILE_DIR_ENV = 'BENCH_CPU_PROF_DIR';

function spawnKind(kind: ServiceKind, start: ServiceStart): ManagedProcess {
  const profileDir = kind === 'api' ? start.env[CPU_PROFILE_DIR_ENV] : undefined;
  const service = spawnService({
    name: start.name,
    command: process.execPath,
    args: [
      ...productionNodeFlags(kind, join(start.buildRoot, 'package.json')),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      join(start.buildRoot, START_SCRIPTS[kind].entry),
    ],
    cwd: start.cwd,
    env: start.env,
    logPath: start.logPath,
  });
  start.onSpawn?.(service);
  return service;
}

export interface StartedApi {
  process: ManagedProcess;
  baseUrl: string;
  port: number;
}

/** The API on `port` (or a free one); resolves when `readyPath` answers 200, kills it otherwise. */
export async function startApiProcess(start: ServiceStart & { port?: number; readyPath?: 'health' | 'health/ready' }): Promise<StartedApi> {
  const port = start.port ?? (await findFreePort());
  const service = spawnKind('api', { ...start, env: { ...start.env, PORT: String(port) } });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForReady(`${baseUrl}/${start.readyPath ?? 'health/ready'}`, service, start.readyTimeoutMs);
  } catch (error) {
    await service.kill9();
    throw error;
  }
  return { process: service, baseUrl, port };
}

/** The worker; resolves on its "worker started" log line (an info line), kills it otherwise. */
export async function startWorkerProcess(start: ServiceStart): Promise<ManagedProcess> {
  const service = spawnKind('worker', start);
  try {
    await waitForLog(service, /worker started/, start.readyTimeoutMs);
  } catch (error) {
    await service.kill9();
    throw error;
  }
  return service;
}
