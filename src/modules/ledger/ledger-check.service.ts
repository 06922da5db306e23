import { Injectable } from '@nestjs/common';
import { assert } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { LedgerCheckRegistry, type LedgerCheckOptions } from './ledger-check-extension.js';
import { LedgerCheckpoints, type CheckpointedReport, type CheckpointInfo } from './ledger-checkpoint.service.js';
import { LedgerService, type LedgerCheckReport } from './ledger.service.js';

/** No checkpoint to answer the ledger part from (runFromCheckpoint): only the extensions ran. */
interface ExtensionsOnly {
  report: null;
  extensionsOk: boolean;
}

export interface FullLedgerCheck {
  ok: boolean;
  report: LedgerCheckReport;
  /** How the balances were recomputed: from the newest checkpoint, or from every entry. */
  mode: 'checkpoint' | 'full';
  checkpoint: CheckpointInfo | null;
  /** Milliseconds each section took: `ledger` and every extension by name. */
  timingsMs: Record<string, number>;
  extensions: Array<readonly [string, { ok: boolean } & Record<string, unknown>]>;
}

/**
 * GET /v1/admin/ledger/check: the ledger's own check plus every registered extension. A failing
 * check is announced (ledger.check_failed), at most once per UTC hour however often it is run.
 */
@Injectable()
export class LedgerCheckService {
  constructor(
    private readonly db: DatabaseService,
    private readonly ledger: LedgerService,
    private readonly registry: LedgerCheckRegistry,
    private readonly webhooks: WebhookOutbox,
    private readonly checkpoints: LedgerCheckpoints,
  ) {}

  /**
   * Without full: from the newest verified checkpoint (only entries after it are read), written
   * first when none exists yet or many entries follow it; full: every entry.
   */
  async run(options: LedgerCheckOptions = { full: false }): Promise<FullLedgerCheck> {
    const checked = await this.runWith(options, async () => {
      const fromCheckpoint = options.full ? null : await this.checkpoints.checkAdvancing();
      return { fromCheckpoint, report: fromCheckpoint ?? (await this.ledger.check()) };
    });
    assert(checked.report !== null, 'the ledger check with its full fallback returned no report');
    return checked as FullLedgerCheck;
  }

  /**
   * The /metrics gauge's check: as run({ full: false }), but never the full check nor the first
   * checkpoint (both read the whole journal, with a 10-minute statement timeout). Without a
   * checkpoint yet (the ledger-checkpoint job or a GET writes it) the ledger part is unknown: the
   * answer is false if an extension (the rollups) failed, else null.
   */
  async runFromCheckpoint(): Promise<boolean | null> {
    const checked = await this.runWith({ full: false }, async () => {
      const fromCheckpoint = await this.checkpoints.checkAdvancing({ firstCheckpoint: false });
      return { fromCheckpoint, report: fromCheckpoint };
    });
    if (checked.report === null) return 'extensionsOk' in checked && !checked.extensionsOk ? false : null;
    return checked.ok;
  }

  private async runWith(
    options: LedgerCheckOptions,
    checkLedger: () => Promise<{ fromCheckpoint: CheckpointedReport | null; report: LedgerCheckReport | null }>,
  ): Promise<FullLedgerCheck | ExtensionsOnly> {
    const timingsMs: Record<string, number> = {};
    const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await fn();
      } finally {
        timingsMs[name] = Math.round((performance.now() - started) * 10) / 10;
      }
    };
    const [{ fromCheckpoint, report }, extensions] = await Promise.all([
      timed('ledger', checkLedger),
      Promise.all(this.registry.all().map(async (e) => [e.name, await timed(e.name, () => e.run(options))] as const)),
    ]);
    if (!report) return { report: null, extensionsOk: extensions.every(([, r]) => r.ok) };
    const ok = report.ok && extensions.every(([, r]) => r.ok);
    if (!ok) await this.announceFailure(report, extensions, new Date());
    return { ok, report, mode: fromCheckpoint ? 'checkpoint' : 'full', checkpoint: fromCheckpoint?.checkpoint ?? null, timingsMs, extensions };
  }

  /**
   * Every posting summed (the ledger part of ?full=true, without the extensions), announced when it
   * fails: the worker's daily proof of the entries a checkpointed check no longer reads.
   */
  async proveJournalInFull(): Promise<LedgerCheckReport> {
    const report = await this.ledger.check();
    if (!report.ok) await this.announceFailure(report, [], new Date());
    return report;
  }

  /** Writes a verified checkpoint at the journal's frontier (the ledger-checkpoint job). */
  writeCheckpoint() {
    return this.checkpoints.write();
  }

  private async announceFailure(report: LedgerCheckReport, extensions: FullLedgerCheck['extensions'], at: Date): Promise<void> {
    const hour = at.toISOString().slice(0, 13);
    const failed = [...(report.ok ? [] : ['ledger']), ...extensions.filter(([, r]) => !r.ok).map(([name]) => name)];
    await this.db.transaction((client) =>
      this.webhooks.emit(client, [
        {
          type: 'ledger.check_failed',
          data: {
            checked_at: at.toISOString(),
            postings_sum_usd: formatAttoAsUsd(report.postingsSumAtto),
            unbalanced_entries: Number(report.unbalancedEntries),
            mismatched_accounts: report.mismatchedAccounts.length,
            held_mismatches: report.heldMismatches.length,
            failed_checks: failed,
          },
          occurredAt: at,
          dedupeKey: `ledger.check_failed:${hour}Z`,
        },
      ]),
    );
  }
}
