// A throwaway PostgreSQL instance of our own (initdb into a temporary directory, its own port and
// socket directory), so the outage scenario can stop, crash and restart it without touching the
// machine's shared Postgres that other test runs use. Runs as the `postgres` system user when we
// are root (initdb and postgres refuse root).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findFreePort, sleep } from '../../../scripts/lib/processes.js';

export interface OwnPostgres {
  port: number;
  dataDir: string;
  /** postgresql://postgres@127.0.0.1:<port>/<db> */
  url(db: string): string;
  isRunning(): boolean;
  start(): Promise<void>;
  /** Fast shutdown (SIGINT: open transactions are aborted, a checkpoint is written). */
  stop(): Promise<void>;
  /** kill -9 of the postmaster and every backend: crash recovery from the WAL at the next start. */
  crash(): Promise<void>;
  /** Stops it and removes the data directory. */
  destroy(): Promise<void>;
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin/initdb'))) : [];
  if (versions.length === 0) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql/*/bin');
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

/** uid/gid to run as: the postgres user when we are root, else ourselves. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root but there is no postgres user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Pids whose parent is `parentPid` (from /proc; none where /proc is absent). */
function childPids(parentPid: number): number[] {
  if (!existsSync('/proc')) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parentPid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How long a start may take to answer, and a fast shutdown before it becomes a kill -9. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const POLL_MS = 100;

export async function startOwnPostgres(input: { logDir: string }): Promise<OwnPostgres> {
  const bin = postgresBinDir();
  const user = runAs();
  const port = await findFreePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'rel-pg-'));
  if (user.uid !== undefined) chownSync(dataDir, user.uid, user.gid!);
  chmodSync(dataDir, 0o700);
  const env = { PATH: process.env.PATH, LC_ALL: 'C', LANG: 'C' };
  const init = spawnSync(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync', '--no-instructions'], {
    ...user,
    cwd: tmpdir(),
    env,
    encoding: 'utf8',
  });
  if (init.status !== 0) {
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  }
  // When this process dies for any reason (even SIGKILL), the pipe closes: kill the postmaster's
  // whole group (its pid is line 1 of postmaster.pid) and remove the data directory.
  const watchdog = spawn(
    '/bin/sh',
    ['-c', 'cat >/dev/null; p=$(head -1 "$1/postmaster.pid" 2>/dev/null); [ -n "$p" ] && kill -KILL -"$p" 2>/dev/null; sleep 1; rm -rf "$1"', 'own-pg-watchdog', dataDir],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  watchdog.unref();

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let incarnation = 0;
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const isRunning = () => child !== null && child.exitCode === null && child.signalCode === null;

  const start = async () => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    // After a crash() the old backends may still hold the shared memory: postgres gives each
    // backend a process group of its own (setsid), so killing the postmaster's group leaves them to
    // notice its death, and a new postmaster refuses to start beside them (soak seed 956388684,
    // step 989, under load). A crash() kills the backends it can see; a start that meets one still
    // attached waits for it and tries again.
    for (;;) {
      const log = await startOnce(deadline);
      if (log === null) return;
      if (!log.includes('pre-existing shared memory block') || Date.now() > deadline) throw new Error(`own postgres exited during start (see ${input.logDir}/postgres.${incarnation}.log)`);
      await sleep(200);
    }
  };

  /** One postmaster start: null once it answers, or the log of a start that exited. */
  const startOnce = async (deadline: number): Promise<string | null> => {
    if (isRunning()) return null;
    incarnation += 1;
    const logFd = openSync(join(input.logDir, `postgres.${incarnation}.log`), 'a');
    // Its own process group (detached), so crash() can kill the postmaster and all backends at once.
    const proc = spawn(
      join(bin, 'postgres'),
      ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'log_min_messages=warning'],
      { ...user, cwd: tmpdir(), env, detached: true, stdio: ['ignore', logFd, logFd] },
    );
    closeSync(logFd);
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    while (!(await answers(adminUrl))) {
      if (!isRunning()) return readFileSync(join(input.logDir, `postgres.${incarnation}.log`), 'utf8');
      if (Date.now() > deadline) throw new Error(`own postgres not answering within ${START_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    return null;
  };

  const waitExit = async () => {
    const timer = setTimeout(() => child?.pid && killGroup(child.pid, 'SIGKILL'), STOP_TIMEOUT_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  const stop = async () => {
    if (!isRunning()) return;
    child!.kill('SIGINT');
    await waitExit();
  };

  const crash = async () => {
    if (!isRunning()) return;
    const postmasterPid = child!.pid!;
    // The backends lead process groups of their own: killed one by one, as a machine crash would.
    const backends = childPids(postmasterPid);
    killGroup(postmasterPid, 'SIGKILL');
    for (const pid of backends) killGroup(pid, 'SIGKILL');
    await waitExit();
  };

  const destroy = async () => {
    await crash().catch(() => undefined);
    watchdog.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await start();
  } catch (error) {
    await destroy();
    throw error;
  }
  return { port, dataDir, url: (db) => `postgresql://postgres@127.0.0.1:${port}/${db}`, isRunning, start, stop, crash, destroy };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
