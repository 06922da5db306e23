// The durable outbox: every report is on disk before it is sent, and removed only once the ledger
// has taken it (2xx, a replay included) or refused it for good (moved to dead/ with the answer).
// A file is written to a temporary name (mode 0600, in a 0700 folder: reports hold user ids and
// completions), fsynced, renamed into place and the directory fsynced, so a crash (kill -9, power
// loss) leaves either the whole report or none of it; the partial temporary files a crash leaves
// are removed at start. A report sent but not yet removed when the process dies is sent again at
// the next start: the ledger answers that replay by its event_id without billing twice.
//
// Each report keeps its own retry schedule (exponential backoff with jitter): one the ledger keeps
// failing never holds back the others. A file that cannot be read is moved to unreadable/.
//
// One process per directory: two gateways sharing an outbox would send the same files twice (still
// billed once, by event_id, but twice the requests).
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeliveryOutcome, LedgerReport } from './reports.js';

/** Files handed to the ledger per delivery pass; the rest wait for the next pass. */
export const OUTBOX_PASS_FILES_MAX = 500;
/** A failing report's wait before its next attempt: base * 2^(failures-1), jittered, at most the cap. */
export const OUTBOX_RETRY_BASE_MS = 1_000;
export const OUTBOX_RETRY_MAX_MS = 5 * 60_000;
const FILE_SUFFIX = '.report.json';
const DEAD_DIR = 'dead';
const TMP_DIR = 'tmp';
const UNREADABLE_DIR = 'unreadable';
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface OutboxOptions {
  dir: string;
  send: (report: LedgerReport) => Promise<DeliveryOutcome>;
  /** A file that could not be read (moved aside), or a report that failed for a reason an operator must see. */
  onError?: (error: Error, name: string) => void;
  random?: () => number;
}

export interface OutboxPassResult {
  delivered: number;
  /** Still on disk, to be sent again later. */
  pending: number;
  /** Refused for good during this pass and moved to dead/. */
  dead: number;
}

/** A report the ledger refused for good, kept in dead/ with the ledger's answer. */
export interface DeadLetter {
  /** Pass it to retryDead([id]). */
  id: string;
  event_id: string;
  kind: LedgerReport['kind'];
  dead_at: string;
  error: { name?: string; message?: string; code?: string; status?: number; details?: unknown };
}

interface Schedule {
  failures: number;
  nextAttemptAtMs: number;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  try {
    chmodSync(dir, DIR_MODE);
  } catch {
    // Not ours to change (or a read-only disk): writes will say so when they fail.
  }
}

export class Outbox {
  private readonly dir: string;
  private readonly deadDir: string;
  private readonly tmpDir: string;
  private readonly unreadableDir: string;
  /** Files being sent right now: a periodic pass and flush() never send the same file at once. */
  private readonly sending = new Set<string>();
  private readonly schedules = new Map<string, Schedule>();
  private sequence = 0;

  constructor(private readonly options: OutboxOptions) {
    this.dir = options.dir;
    this.deadDir = join(this.dir, DEAD_DIR);
    this.tmpDir = join(this.dir, TMP_DIR);
    this.unreadableDir = join(this.dir, UNREADABLE_DIR);
    for (const dir of [this.dir, this.deadDir, this.tmpDir, this.unreadableDir]) ensureDir(dir);
    this.removePartialFiles();
  }

  /** Temporary files are only ever half-written reports of a process that died (one process per directory). */
  private removePartialFiles(): void {
    try {
      for (const name of readdirSync(this.tmpDir)) rmSync(join(this.tmpDir, name), { force: true, recursive: true });
    } catch {
      // A read-only disk: they stay, and are never read anyway.
    }
  }

  private async writeDurably(dir: string, name: string, text: string): Promise<void> {
    const tmpPath = join(this.tmpDir, `${name}.${process.pid}.tmp`);
    try {
      const handle = await open(tmpPath, 'w', FILE_MODE);
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmpPath, join(dir, name));
    } catch (error) {
      await unlink(tmpPath).catch(() => undefined);
      throw error;
    }
    await fsyncDir(dir);
  }

  /** Keeps the report durably; returns its file name. Names sort by the time they were put. Throws when the disk cannot take it. */
  async put(report: LedgerReport): Promise<string> {
    const idHash = createHash('sha256').update(report.event_id).digest('hex').slice(0, 16);
    this.sequence += 1;
    const name = `${Date.now().toString().padStart(14, '0')}-${String(this.sequence).padStart(6, '0')}-${idHash}${FILE_SUFFIX}`;
    await this.writeDurably(this.dir, name, JSON.stringify(report));
    return name;
  }

  /**
   * Sends one kept report: delivered, dead or unreadable (it left the outbox), pending (kept;
   * unreachable when the ledger gave no answer at all), busy (being sent already).
   */
  async deliver(name: string): Promise<'delivered' | 'pending' | 'unreachable' | 'dead' | 'unreadable' | 'busy'> {
    if (this.sending.has(name)) return 'busy';
    this.sending.add(name);
    try {
      const path = join(this.dir, name);
      let report: LedgerReport;
      try {
        report = JSON.parse(await readFile(path, 'utf8')) as LedgerReport;
        if (typeof report?.event_id !== 'string' || !['stream', 'response', 'event'].includes(report.kind)) throw new Error('not a ledger report');
      } catch (error) {
        // Removed by another pass meanwhile: nothing left to do.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'delivered';
        await this.moveAside(name, error as Error);
        return 'unreadable';
      }
      const result = await this.options.send(report);
      if (result.outcome === 'retry') {
        this.scheduleRetry(name);
        return result.unreachable ? 'unreachable' : 'pending';
      }
      this.schedules.delete(name);
      if (result.outcome === 'refused') {
        const error = result.error as Error & { code?: string; status?: number; details?: unknown };
        const record = { report, error: { name: error.name, message: error.message, code: error.code, status: error.status, details: error.details }, dead_at: new Date().toISOString() };
        await this.writeDurably(this.deadDir, name, JSON.stringify(record));
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

  private scheduleRetry(name: string): void {
    const failures = (this.schedules.get(name)?.failures ?? 0) + 1;
    const ceilingMs = Math.min(OUTBOX_RETRY_MAX_MS, OUTBOX_RETRY_BASE_MS * 2 ** Math.min(failures - 1, 30));
    // Half fixed, half jitter: reports that failed together do not all come back at once.
    const waitMs = ceilingMs / 2 + Math.floor((this.options.random ?? Math.random)() * (ceilingMs / 2));
    this.schedules.set(name, { failures, nextAttemptAtMs: Date.now() + waitMs });
  }

  /** A file that is not a readable report never blocks the others: it goes to unreadable/ for an operator. */
  private async moveAside(name: string, cause: Error): Promise<void> {
    this.schedules.delete(name);
    await rename(join(this.dir, name), join(this.unreadableDir, name)).catch(() => undefined);
    this.options.onError?.(new Error(`outbox file ${name} is not a readable report (${cause.message}); moved to ${UNREADABLE_DIR}/`), name);
  }

  async list(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => name.endsWith(FILE_SUFFIX)).sort();
  }

  async listDead(): Promise<string[]> {
    return (await readdir(this.deadDir)).filter((name) => name.endsWith(FILE_SUFFIX)).sort();
  }

  /**
   * One pass over what is kept, oldest first. A report waiting for its next attempt is skipped
   * unless `force` (flush() sends everything now). A report the ledger answers with a failure
   * never stops the pass; no answer at all (the ledger down) does: the rest would fail alike, and a
   * gateway flushing after each call would otherwise try every kept report each time.
   */
  async deliverAll(options: { force?: boolean } = {}): Promise<OutboxPassResult> {
    const names = (await this.list()).slice(0, OUTBOX_PASS_FILES_MAX);
    const result: OutboxPassResult = { delivered: 0, pending: 0, dead: 0 };
    const nowMs = Date.now();
    for (const name of names) {
      const schedule = this.schedules.get(name);
      if (!options.force && schedule && schedule.nextAttemptAtMs > nowMs) continue;
      const outcome = await this.deliver(name);
      if (outcome === 'delivered') result.delivered += 1;
      if (outcome === 'dead') result.dead += 1;
      if (outcome === 'unreachable') break;
    }
    result.pending = (await this.list()).length;
    return result;
  }

  /** The dead letters, oldest first, with the ledger's answer. */
  async dead(): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    for (const name of await this.listDead()) {
      try {
        const record = JSON.parse(await readFile(join(this.deadDir, name), 'utf8')) as { report: LedgerReport; error: DeadLetter['error']; dead_at: string };
        letters.push({ id: name.slice(0, -FILE_SUFFIX.length), event_id: record.report.event_id, kind: record.report.kind, dead_at: record.dead_at, error: record.error });
      } catch (error) {
        this.options.onError?.(new Error(`dead letter ${name} cannot be read: ${(error as Error).message}`), name);
      }
    }
    return letters;
  }

  /**
   * Sends dead letters again (all, or those `ids` names), for example once the contributor they
   * name is registered: each goes back into the outbox and is delivered now; one refused again
   * returns to dead/ with the new answer.
   */
  async retryDead(ids?: string[]): Promise<OutboxPassResult> {
    const wanted = ids ? new Set(ids) : undefined;
    const result: OutboxPassResult = { delivered: 0, pending: 0, dead: 0 };
    for (const name of await this.listDead()) {
      if (wanted && !wanted.has(name.slice(0, -FILE_SUFFIX.length))) continue;
      const record = JSON.parse(await readFile(join(this.deadDir, name), 'utf8')) as { report: LedgerReport };
      await this.writeDurably(this.dir, name, JSON.stringify(record.report));
      await unlink(join(this.deadDir, name));
      const outcome = await this.deliver(name);
      if (outcome === 'delivered') result.delivered += 1;
      else if (outcome === 'dead') result.dead += 1;
      else if (outcome === 'pending' || outcome === 'unreachable') result.pending += 1;
    }
    return result;
  }
}
