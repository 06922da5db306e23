// A throwaway Postgres primary with one streaming hot standby, in temporary directories on free
// ports, for tests and benchmarks of READ_DATABASE_URL (docs/scaling.md). Real replication
// (initdb, pg_basebackup -R), run as the `postgres` user when started as root (initdb refuses root).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findFreePort } from './processes.js';

const START_TIMEOUT_SECONDS = 30;

export interface PgReplicaPair {
  primaryUrl: (database: string) => string;
  replicaUrl: (database: string) => string;
  /** Stops the standby (fast shutdown): reads through it fail until startReplica(). */
  stopReplica: () => void;
  startReplica: () => void;
  /** Waits until the standby has replayed everything the primary has written so far. */
  waitForCatchUp: (timeoutMs?: number) => Promise<void>;
  stop: () => void;
}

function binDir(): string {
  return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
}

/** Runs a Postgres binary, as `postgres` when this process is root. */
function runPg(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? 'runuser' : join(binDir(), bin);
  const fullArgs = asRoot ? ['-u', 'postgres', '--', join(binDir(), bin), ...args] : args;
  const result = spawnSync(command, fullArgs, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

export async function startPgReplicaPair(): Promise<PgReplicaPair> {
  const root = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
  chmodSync(root, 0o777);
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  const [primaryPort, replicaPort] = [await findFreePort(), await findFreePort()];
  const serverOptions = (port: number) => `-c port=${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off -c max_wal_senders=4 -c wal_level=replica -c hot_standby=on`;

  runPg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  runPg('pg_ctl', ['-D', primaryDir, '-o', serverOptions(primaryPort), '-l', join(root, 'primary.log'), '-w', '-t', String(START_TIMEOUT_SECONDS), 'start']);
  runPg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--no-sync']);
  const startReplica = () =>
    runPg('pg_ctl', ['-D', replicaDir, '-o', serverOptions(replicaPort), '-l', join(root, 'replica.log'), '-w', '-t', String(START_TIMEOUT_SECONDS), 'start']);
  startReplica();

  const url = (port: number) => (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const primaryUrl = url(primaryPort);
  const replicaUrl = url(replicaPort);
  return {
    primaryUrl,
    replicaUrl,
    stopReplica: () => runPg('pg_ctl', ['-D', replicaDir, '-m', 'fast', '-w', 'stop']),
    startReplica,
    waitForCatchUp: async (timeoutMs = 15_000) => {
      const primary = new pg.Client({ connectionString: primaryUrl('postgres') });
      const replica = new pg.Client({ connectionString: replicaUrl('postgres') });
      await Promise.all([primary.connect(), replica.connect()]);
      try {
        const target = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const caughtUp = await replica.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target]);
          if (caughtUp.rows[0]?.ok) return;
          if (Date.now() > deadline) throw new Error(`replica did not reach ${target} within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await Promise.all([primary.end(), replica.end()]);
      }
    },
    stop: () => {
      for (const dir of [replicaDir, primaryDir]) {
        try {
          runPg('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // already stopped
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
