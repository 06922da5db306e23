import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { LedgerCheckpointQueueProducer } from './ledger-checkpoint-queue.producer.js';
import { LedgerCheckpointRepository, type LedgerCheckpointRow } from './ledger-checkpoint.repository.js';
import { LedgerRepository } from './ledger.repository.js';
import type { LedgerCheckReport } from './ledger.service.js';

const MISMATCHES_REPORTED_MAX = 100;
/** Checkpoints kept (older ones are deleted when a new one is written). */
const CHECKPOINTS_KEPT = 3;
/** No upper bound: every entry the snapshot sees after the checkpoint. */
const LAST_ENTRY = 2n ** 63n - 1n;
/**
 * A passing check that read at least this many entries after the newest checkpoint asks the
 * worker to write a new one at the frontier (checkAdvancing), so later checks read only what follows.
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
    private readonly advancer: LedgerCheckpointQueueProducer,
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
   * The check of GET /v1/admin/ledger/check without full: from the newest checkpoint; the first one
   * is written here when none exists yet (and verifies). When many entries follow it, the check
   * still answers from it (it reads them once) and asks the worker to move it (issue 35): before,
   * the request wrote the new checkpoint itself, under the journal frontier's SHARE lock that every
   * journal writer queued behind, and read the new entries three more times. A failing check asks
   * nothing (the write would refuse anyway). null: no checkpoint, and none could be written (the
   * journal does not balance, or its frontier's lock was not granted within
   * FRONTIER_LOCK_TIMEOUT_CHECK); the caller then runs the full check, which reports why. With
   * `firstCheckpoint: false` (the /metrics gauge), none is written when none exists yet: null at once.
   */
  async checkAdvancing(options: { firstCheckpoint: boolean } = { firstCheckpoint: true }): Promise<CheckpointedReport | null> {
    const report = await this.check();
    if (report !== null) {
      if (report.ok && report.checkpoint.entriesSince >= CHECKPOINT_ADVANCE_ENTRIES) await this.advancer.requestAdvance();
      return report;
    }
    if (!options.firstCheckpoint) return null;
    try {
      // Written only if verified: the entries balance and the sums equal every stored balance.
      await this.write(FRONTIER_LOCK_TIMEOUT_CHECK);
    } catch (error) {
      // Refused (entries that do not balance, the lock not granted): the full check answers.
      this.logger.warn(`check could not write the first checkpoint: ${(error as Error).message}`);
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
    return storedAsVerified(await this.repository.digestOf(client, checkpoint.id), checkpoint);
  }

  private async verify(client: SqlClient, checkpoint: LedgerCheckpointRow): Promise<Omit<CheckpointedReport, 'heldMismatches'>> {
    const v = await this.repository.verifyAfter(client, checkpoint.id, checkpoint.throughEntryId, LAST_ENTRY, MISMATCHES_REPORTED_MAX);
    const intact = storedAsVerified(v.stored, checkpoint);
    return {
      ok: intact && v.postingsSumAtto === 0n && v.unbalancedEntries === 0n && v.mismatched.length === 0,
      journalEntries: checkpoint.entries + v.entries,
      postingsSumAtto: v.postingsSumAtto,
      unbalancedEntries: v.unbalancedEntries,
      mismatchedAccounts: v.mismatched.map((m) => ({ account: m.code, storedAtto: m.storedAtto, postedAtto: m.postedAtto })),
      checkpoint: { id: checkpoint.id, throughEntryId: checkpoint.throughEntryId, createdAt: checkpoint.createdAt, intact, entriesSince: v.entries },
    };
  }
}

/** A checkpoint's balance rows as stored now still hash to its digest, count its accounts and sum to zero. */
function storedAsVerified(stored: { digest: string; accounts: number; totalAtto: bigint }, checkpoint: LedgerCheckpointRow): boolean {
  return stored.digest === checkpoint.digest && stored.accounts === checkpoint.accounts && stored.totalAtto === 0n;
}
