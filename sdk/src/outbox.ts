// The durable outbox: every report is on disk before it is sent, and removed only once the ledger
// has taken it (2xx, a replay included) or refused it for good (moved to dead/ with the error).
// A file is written to a temporary name, fsynced, renamed into place and the directory fsynced, so
// a crash (kill -9, power loss) leaves either the whole report or none of it. A report sent but not
// yet removed when the process dies is sent again at the next start: the ledger answers that replay
// by its event_id without billing twice.
//
// One process per directory: two gateways sharing an outbox would send the same files twice (still
// billed once, by event_id, but twice the requests).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeliveryOutcome, LedgerReport } from './reports.js';

/** Files handed to the ledger per delivery pass; the rest wait for the next pass. */
export const OUTBOX_PASS_FILES_MAX = 500;
const FILE_SUFFIX = '.report.json';
const DEAD_DIR = 'dead';
const TMP_DIR = 'tmp';

export interface OutboxOptions {
  dir: string;
  send: (report: LedgerReport) => Promise<DeliveryOutcome>;
}

export interface OutboxPassResult {
  delivered: number;
  /** Still on disk, to be sent again later. */
  pending: number;
  /** Refused for good during this pass and moved to dead/. */
  dead: number;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeDurably(dir: string, name: string, text: string, tmpDir: string): Promise<void> {
  const tmpPath = join(tmpDir, `${name}.${process.pid}.tmp`);
  const handle = await open(tmpPath, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmpPath, join(dir, name));
  await fsyncDir(dir);
}

export class Outbox {
  private readonly dir: string;
  private readonly deadDir: string;
  private readonly tmpDir: string;
  /** Files being sent right now: a periodic pass and flush() never send the same file at once. */
  private readonly sending = new Set<string>();
  private sequence = 0;

  constructor(private readonly options: OutboxOptions) {
    this.dir = options.dir;
    this.deadDir = join(this.dir, DEAD_DIR);
    this.tmpDir = join(this.dir, TMP_DIR);
    mkdirSync(this.deadDir, { recursive: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Keeps the report durably; returns its file name. Names sort by the time they were put. */
  async put(report: LedgerReport): Promise<string> {
    const idHash = createHash('sha256').update(report.event_id).digest('hex').slice(0, 16);
    this.sequence += 1;
    const name = `${Date.now().toString().padStart(14, '0')}-${String(this.sequence).padStart(6, '0')}-${idHash}${FILE_SUFFIX}`;
    await writeDurably(this.dir, name, JSON.stringify(report), this.tmpDir);
    return name;
  }

  /** Sends one kept report: delivered or dead (it left the outbox), pending (kept), busy (being sent already). */
  async deliver(name: string): Promise<'delivered' | 'pending' | 'dead' | 'busy'> {
    if (this.sending.has(name)) return 'busy';
    this.sending.add(name);
    try {
      const path = join(this.dir, name);
      let report: LedgerReport;
      try {
        report = JSON.parse(await readFile(path, 'utf8')) as LedgerReport;
      } catch (error) {
        // Removed by another pass meanwhile: nothing left to do.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'delivered';
        throw error;
      }
      const result = await this.options.send(report);
      if (result.outcome === 'retry') return 'pending';
      if (result.outcome === 'refused') {
        const record = { report, error: { name: result.error.name, message: result.error.message, ...(result.error as object) }, dead_at: new Date().toISOString() };
        await writeDurably(this.deadDir, name, JSON.stringify(record), this.tmpDir);
        await unlink(path);
        await fsyncDir(this.dir);
        return 'dead';
      }
      await unlink(path);
      return 'delivered';
    } finally {
      this.sending.delete(name);
    }
  }

  async list(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => name.endsWith(FILE_SUFFIX)).sort();
  }

  async listDead(): Promise<string[]> {
    return (await readdir(this.deadDir)).filter((name) => name.endsWith(FILE_SUFFIX)).sort();
  }

  /** One pass over what is kept, oldest first; stops early when the ledger is unreachable. */
  async deliverAll(): Promise<OutboxPassResult> {
    const names = (await this.list()).slice(0, OUTBOX_PASS_FILES_MAX);
    const result: OutboxPassResult = { delivered: 0, pending: 0, dead: 0 };
    for (const name of names) {
      const outcome = await this.deliver(name);
      if (outcome === 'delivered') result.delivered += 1;
      if (outcome === 'dead') result.dead += 1;
      // The ledger is down or overloaded: the rest would fail the same way; the next pass tries again.
      if (outcome === 'pending') break;
    }
    result.pending = (await this.list()).length;
    return result;
  }
}
