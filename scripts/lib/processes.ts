// Child-process helpers for the demo, the benchmark and the reliability suite: spawn a service
// with its output in a log file, wait until it answers, find a free port, stop or kill -9 a whole
// process tree, restart it with the same spec, read its resident memory, and clean everything up
// on exit or Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** The host the services of a run bind, and the one findFreePort checks a port on. */
export const LOOPBACK_HOST = '127.0.0.1';
export const STOP_GRACE_MS = 5_000;
export const READY_TIMEOUT_MS = 60_000;
const READY_POLL_INTERVAL_MS = 100;
const READY_PROBE_TIMEOUT_MS = 2_000;
const LOG_TAIL_CHARS = 3_000;
const KILL_SETTLE_POLL_MS = 20;

export interface ServiceSpec {
  /** Short name used in messages ("api", "worker"). */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here, so restarts keep the earlier output. */
  logPath: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  spec: ServiceSpec;
  child: ChildProcess;
  pid: number;
  exited: Promise<ExitInfo>;
  isRunning(): boolean;
  /** How it ended ("exit 1", "signal SIGTERM"), or null while it runs. */
  exitDescription(): string | null;
  /** SIGTERM to the process group, SIGKILL after the grace period. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** kill -9 of the whole process group (crash simulation); resolves once it is gone. */
  kill9(): Promise<ExitInfo>;
  logTail(chars?: number): string;
  /** The log file's size when this process started: what it logs comes after (the file is appended to by every start). */
  logStartBytes: number;
}

/**
 * Starts the service in its own process group (so the whole tree can be signalled) with output
 * appended to its log file. A watchdog ends the group if this process dies, even by SIGKILL.
 */
export function spawnService(spec: ServiceSpec): ManagedProcess {
  const logFd = openSync(spec.logPath, 'a');
  const logStartBytes = fstatSync(logFd).size;
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  if (child.pid === undefined) throw new Error(`${spec.name}: spawn of ${spec.command} failed`);
  const pid = child.pid;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  startWatchdog(pid, exited);
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  const exitDescription = () => (isRunning() ? null : child.signalCode ? `signal ${child.signalCode}` : `exit ${child.exitCode}`);
  return {
    spec,
    child,
    pid,
    exited,
    isRunning,
    exitDescription,
    stop: (graceMs = STOP_GRACE_MS) => stopGroup(pid, exited, isRunning, graceMs),
    kill9: async () => {
      if (isRunning()) signalGroup(pid, 'SIGKILL');
      return exited;
    },
    logTail: (chars = LOG_TAIL_CHARS) => readTail(spec.logPath, chars),
    logStartBytes,
  };
}

/** Kills the previous instance with SIGKILL (crash) or SIGTERM (clean), then starts the same spec again. */
export async function restartService(previous: ManagedProcess, how: 'crash' | 'clean' = 'crash'): Promise<ManagedProcess> {
  if (how === 'crash') await previous.kill9();
  else await previous.stop();
  return spawnService(previous.spec);
}

/**
 * A tiny shell reading a pipe from us: when this process dies for any reason the pipe closes
 * and the shell terminates the service's process group, so nothing outlives a crashed run.
 */
function startWatchdog(pid: number, exited: Promise<ExitInfo>): void {
  const script = 'cat >/dev/null; kill -TERM -"$1" 2>/dev/null; sleep 2; kill -KILL -"$1" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, 'service-watchdog', String(pid)], { stdio: ['pipe', 'ignore', 'ignore'] });
  // Strong references: a collected pipe would close and make the watchdog kill a healthy service.
  liveWatchdogs.add(watchdog);
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  // The service ending on its own must end the watchdog, so it never signals a reused pid.
  void exited.then(() => {
    watchdog.kill('SIGKILL');
    liveWatchdogs.delete(watchdog);
  });
}
const liveWatchdogs = new Set<ChildProcess>();

/** Signals every process of the group led by pid; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Kills a process tree that we did not spawn ourselves (by its group leader's pid). */
export async function killTree(pid: number, signal: NodeJS.Signals = 'SIGKILL', waitMs = STOP_GRACE_MS): Promise<void> {
  signalGroup(pid, signal);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && processExists(pid)) await sleep(KILL_SETTLE_POLL_MS);
}

async function stopGroup(pid: number, exited: Promise<ExitInfo>, isRunning: () => boolean, graceMs: number): Promise<ExitInfo> {
  if (!isRunning()) return exited;
  signalGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls the URL until it answers 2xx; fails early with the log tail when the process exits. */
export async function waitForReady(url: string, service?: ManagedProcess, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (service && !service.isRunning()) {
      throw new Error(`${service.spec.name} ended (${service.exitDescription()}) before it was ready (see ${service.spec.logPath}):\n${service.logTail()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(READY_PROBE_TIMEOUT_MS) });
      if (response.ok) return;
      lastProblem = `HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await sleep(READY_POLL_INTERVAL_MS);
  }
  const tail = service ? `\n${service.logTail()}` : '';
  throw new Error(`${url} not ready within ${timeoutMs} ms (${lastProblem})${tail}`);
}

/** Waits until the service's log contains the pattern (for processes without HTTP, e.g. the worker). */
export async function waitForLog(service: ManagedProcess, pattern: RegExp, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!service.isRunning()) {
      throw new Error(`${service.spec.name} ended (${service.exitDescription()}) before logging ${pattern} (see ${service.spec.logPath}):\n${service.logTail()}`);
    }
    // Only what this process logged: a restart on the same log file must not match the last start's line.
    const logged = await readFile(service.spec.logPath).catch(() => Buffer.alloc(0));
    if (pattern.test(logged.subarray(service.logStartBytes).toString('utf8'))) return;
    await sleep(READY_POLL_INTERVAL_MS);
  }
  throw new Error(`${service.spec.name} did not log ${pattern} within ${timeoutMs} ms:\n${service.logTail()}`);
}

/** A port nobody listens on right now (the OS picks it). */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, LOOPBACK_HOST);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not read a free port');
  return address.port;
}

/** /proc/<pid>/<name> as text, or null when the process is gone. */
function readProcFile(pid: number, name: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}

/** Resident set size in bytes from /proc/<pid>/status (VmRSS), or null when the process is gone. */
export function readRssBytes(pid: number): number | null {
  const status = readProcFile(pid, 'status');
  if (status === null) return null;
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system) a process has used, in seconds, from /proc/<pid>/stat; null when gone. */
export function readCpuSeconds(pid: number): number | null {
  const stat = readProcFile(pid, 'stat');
  if (stat === null) return null;
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/** Pids whose command line contains the text (e.g. the Postgres backends of one database). */
export function findPidsByCmdline(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // null: the process ended while we looked.
    if (readProcFile(Number(entry), 'cmdline')?.includes(text)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * CPU used by a set of processes between start() and stop(), in core-seconds; processes that
 * appear in between count from zero. Shows whether Node or Postgres bounds a load phase.
 */
export function cpuMeter(pidsNow: () => number[]): { stop(): number } {
  const startCpu = new Map(pidsNow().map((pid) => [pid, readCpuSeconds(pid) ?? 0]));
  return {
    stop: () => {
      let used = 0;
      for (const pid of pidsNow()) used += (readCpuSeconds(pid) ?? 0) - (startCpu.get(pid) ?? 0);
      return used;
    },
  };
}

/** Busy core-seconds of the whole machine from /proc/stat (all processes, ours and others'). */
export function readMachineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / CLOCK_TICKS_PER_S;
}

/** Samples a process's RSS at an interval; stop() returns the peak and the last sample. */
export function sampleRss(pid: number, intervalMs: number): { stop(): { peakBytes: number; lastBytes: number; samples: number } } {
  let peakBytes = 0;
  let lastBytes = 0;
  let samples = 0;
  const take = () => {
    const rss = readRssBytes(pid);
    if (rss === null) return;
    samples += 1;
    lastBytes = rss;
    peakBytes = Math.max(peakBytes, rss);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return { peakBytes, lastBytes, samples };
    },
  };
}

/** Runs a command to completion with output appended to a log file; rejects on a non-zero exit. */
export async function runLogged(name: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; logPath: string }): Promise<void> {
  const service = spawnService({ name, command, args, cwd: options.cwd, env: options.env ?? process.env, logPath: options.logPath });
  const exit = await service.exited;
  if (exit.code !== 0) {
    throw new Error(`${name} failed (${exit.signal ?? `exit ${exit.code}`}), see ${options.logPath}:\n${service.logTail()}`);
  }
}

function readTail(path: string, chars: number): string {
  try {
    return readFileSync(path, 'utf8').slice(-chars);
  } catch {
    return '(no log)';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type CleanupStep = { label: string; run: () => Promise<unknown> | unknown };

/**
 * Cleanup steps run once, last registered first, on normal completion, on failure and on
 * SIGINT/SIGTERM (then the process exits 130/143). Each step's failure is reported, not fatal.
 */
export class CleanupStack {
  private readonly steps: CleanupStep[] = [];
  private running: Promise<void> | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n[cleanup] ${signal}: stopping everything`);
    // Work cut short by the cleanup (a query on a dropped database) may fail loudly: we exit anyway.
    process.on('uncaughtException', (error) => console.error(`[cleanup] ignored while stopping: ${error.message}`));
    void this.runAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };

  constructor(private readonly log: (line: string) => void = () => undefined) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  add(label: string, run: CleanupStep['run']): void {
    this.steps.push({ label, run });
  }

  runAll(): Promise<void> {
    this.running ??= this.drain();
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.run();
        this.log(`${step.label}: done`);
      } catch (error) {
        console.error(`[cleanup] ${step.label} failed: ${(error as Error).message}`);
      }
    }
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
