import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { LedgerCheckpointRepository, type LedgerCheckpointRow } from './ledger-checkpoint.repository.js';
import { LedgerRepository } from './ledger.repository.js';
import type { LedgerCheckReport } from './ledger.service.js';

const MISMATCHES_REPORTED_MAX = 100;
/** Checkpoints kept (older ones are deleted when a new one is written). */
const CHECKPOINTS_KEPT = 3;
/** No upper bound: every entry the snapshot sees after the checkpoint. */
const LAST_ENTRY = 2n ** 63n - 1n;
/**
 * A passing check that had to read at least this many entries after the newest checkpoint (or had
 * none to start from) writes a new one at the frontier, so the next check reads only what follows.
 */
export const CHECKPOINT_ADVANCE_ENTRIES = 10_000n;
/**
 * How long a write waits for the journal frontier's SHARE lock (every new journal writer queues
 * behind a waiting request): the scheduled job and POST /v1/admin/ledger/checkpoint as before; a
 * check (GET /v1/admin/ledger/check, the /metrics gauge) gives up soon and keeps its earlier answer.
 */
export const FRONTIER_LOCK_TIMEOUT_JOB = '5s';
export const FRONTIER_LOCK_TIMEOUT_CHECK = '200ms';
/** As the rollup check's: more than the pool's default statement timeout. */
const CHECKPOINT_WRITE_TIMEOUT = '10min';

export interface CheckpointInfo {
  id: bigint;
  throughEntryId: bigint;
  createdAt: Date;
  /** The stored balance rows still hash to the digest written when the checkpoint was verified. */
  intact: boolean;
  entriesSince: bigint;
}

export type CheckpointedReport = LedgerCheckReport & { checkpoint: CheckpointInfo };

/**
 * Checkpointed ledger check (docs/history.md). A checkpoint holds every account's sum of postings
 * up to a journal entry id that no running transaction can still write below (the frontier); it is
 * written only if, in the same snapshot, its sums plus the entries after it equal every stored
 * balance. A check then proves the checkpoint's rows intact (their sha256 digest, a zero total)
 * and recomputes only the entries after it: its cost follows what was written since, not history.
 */
@Injectable()
export class LedgerCheckpoints {
  private readonly logger = new Logger('LedgerCheckpoints');

  constructor(
    private readonly db: DatabaseService,
    private readonly repository: LedgerCheckpointRepository,
    private readonly ledger: LedgerRepository,
  ) {}

  /** The check from the newest checkpoint; null when none was written yet (run the full one). */
  async check(): Promise<CheckpointedReport | null> {
    const [report, held] = await Promise.all([
      this.db.transaction(async (client) => {
        const checkpoint = await this.repository.latest(client);
        return checkpoint ? this.verify(client, checkpoint) : null;
      }, 'repeatable read'),
      this.ledger.findHeldMismatches(MISMATCHES_REPORTED_MAX),
    ]);
    if (!report) return null;
    const heldMismatches = held.map((h) => ({ account: h.code, heldAtto: h.heldAtto, activeHoldsAtto: h.activeHoldsAtto }));
    return { ...report, heldMismatches, ok: report.ok && heldMismatches.length === 0 };
  }

  /**
   * The check of GET /v1/admin/ledger/check without full: from the newest checkpoint, moved to the
   * journal's frontier first when there is none yet or many entries follow it (and the move
   * verifies). Without this, a journal whose checkpoint job had not run was summed in full on every
   * check (issue 25: 18.8 s with nothing new over a few million entries). null: no checkpoint could
   * be written (the journal does not balance, or its frontier's lock was not granted within
   * FRONTIER_LOCK_TIMEOUT_CHECK); the caller then runs the full check, which reports why. With
   * `firstCheckpoint: false` (the /metrics gauge), none is written when none exists yet: null at once.
   */
  async checkAdvancing(options: { firstCheckpoint: boolean } = { firstCheckpoint: true }): Promise<CheckpointedReport | null> {
    // How many entries follow the newest checkpoint, counted up to the threshold only (a range of
    // the primary key): when as many as that follow it, it is moved first and the check reads what
    // follows the new one. Before, the check read them (twice), then the write read them again
    // twice: after 10,000 new entries, four reads of them in one GET (issue 35).
    const pending = await this.db.transaction((client) => this.repository.entriesAfterLatest(client, CHECKPOINT_ADVANCE_ENTRIES));
    if (pending === null && !options.firstCheckpoint) return null;
    if (pending === null || pending >= CHECKPOINT_ADVANCE_ENTRIES) {
      try {
        // Written only if verified: the entries balance and the new sums equal every stored balance,
        // so a check that would fail never moves it.
        await this.write(FRONTIER_LOCK_TIMEOUT_CHECK);
      } catch (error) {
        // Refused (entries that do not balance, a tampered checkpoint, the lock not granted): the
        // check below answers from what there is (null without any checkpoint: the full check).
        this.logger.warn(`check could not advance the checkpoint: ${(error as Error).message}`);
      }
    }
    return this.check();
  }

  /**
   * Writes a checkpoint at the journal's frontier from the previous one, verified before it
   * commits; returns it (or null when nothing was written since the last one).
   */
  async write(frontierLockTimeout = FRONTIER_LOCK_TIMEOUT_JOB): Promise<{ id: bigint; throughEntryId: bigint; entries: bigint } | null> {
    const frontier = await this.repository.frontier(frontierLockTimeout);
    return this.db.transaction(async (client) => {
      // The first one reads the whole journal (minutes at millions of entries on a loaded machine).
      await client.query(`SET LOCAL statement_timeout = '${CHECKPOINT_WRITE_TIMEOUT}'`);
      const previous = await this.repository.latest(client);
      if (previous && previous.throughEntryId >= frontier) return null;
      if (previous) {
        const intact = await this.intact(client, previous);
        if (!intact) throw new Error(`ledger checkpoint ${previous.id} no longer matches its digest: not building on it`);
      }
      const range = await this.repository.totalsBetween(client, previous?.throughEntryId ?? 0n, frontier);
      if (range.unbalancedEntries !== 0n || range.postingsSumAtto !== 0n) {
        throw new Error(`journal entries up to ${frontier} do not balance (${range.unbalancedEntries} unbalanced, sum ${range.postingsSumAtto}): no checkpoint written`);
      }
      const entries = (previous?.entries ?? 0n) + range.entries;
      await this.repository.insert(client, previous, frontier, entries);
      const written = (await this.repository.latest(client))!;
      const verified = await this.verify(client, written);
      if (!verified.ok) {
        throw new Error(`ledger checkpoint at entry ${frontier} failed its verification (${verified.mismatchedAccounts.length} accounts differ): not written`);
      }
      await this.repository.prune(client, CHECKPOINTS_KEPT);
      this.logger.log(`checkpoint ${written.id} through entry ${frontier}: ${entries} entries, ${written.accounts} accounts`);
      return { id: written.id, throughEntryId: frontier, entries };
    }, 'repeatable read');
  }

  private async intact(client: SqlClient, checkpoint: LedgerCheckpointRow): Promise<boolean> {
    const stored = await this.repository.digestOf(client, checkpoint.id);
    return stored.digest === checkpoint.digest && stored.accounts === checkpoint.accounts && stored.totalAtto === 0n;
  }

  private async verify(client: SqlClient, checkpoint: LedgerCheckpointRow): Promise<Omit<CheckpointedReport, 'heldMismatches'>> {
    const intact = await this.intact(client, checkpoint);
    const since = await this.repository.totalsBetween(client, checkpoint.throughEntryId, null);
    const mismatched = await this.repository.findMismatchedAccounts(client, checkpoint.id, checkpoint.throughEntryId, LAST_ENTRY, MISMATCHES_REPORTED_MAX);
    return {
      ok: intact && since.postingsSumAtto === 0n && since.unbalancedEntries === 0n && mismatched.length === 0,
      journalEntries: checkpoint.entries + since.entries,
      postingsSumAtto: since.postingsSumAtto,
      unbalancedEntries: since.unbalancedEntries,
      mismatchedAccounts: mismatched.map((m) => ({ account: m.code, storedAtto: m.storedAtto, postedAtto: m.postedAtto })),
      checkpoint: { id: checkpoint.id, throughEntryId: checkpoint.throughEntryId, createdAt: checkpoint.createdAt, intact, entriesSince: since.entries },
    };
  }
}
