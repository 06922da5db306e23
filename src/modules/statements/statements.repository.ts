import { Injectable } from '@nestjs/common';
import { assert } from '../../common/errors/index.js';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import { CONTRIBUTOR_ADJUSTMENT_REF_PREFIX, REFUND_REF_PREFIX, type JournalKind } from '../ledger/journal-kinds.js';
import { bookedKindOf, STATEMENT_LINE_KINDS, type BookedLine, type EarningRow, type StatementFacts } from './statement.js';
import type { StatementMonth } from './statement-month.js';

/** Rows one statement may hold: a month of days x 1,000 models, and booked lines. */
export const STATEMENT_EARNING_ROWS_MAX = 31_000;
export const STATEMENT_BOOKED_LINES_MAX = 10_000;

export class StatementTooLarge extends Error {}

// The journal entries of one contributor other than usage, found through the tables that name the
// contributor (the journal has no index by account: one is not worth its cost on the hot insert
// path). Each source row names its entry by (kind, ref), the journal's unique key; kinds and ref
// prefixes are parameters from the journal catalogue (ledger/journal-kinds.ts), not literals.
// $1 contributor, $2 the contributor's owed account codes, $3 the end of the range (exclusive),
// $4-$8 CATALOGUE_PARAMS.
const CONTRIBUTOR_ENTRIES_CTE = `
  refs (kind, ref, reference, payout_id, settlement_id, amount_micro_usdc, tx_id, confirmed_at) AS (
    SELECT k.kind, l.id::text, NULL::text, l.id, l.settlement_id, l.amount_micro_usdc, l.tx_id, l.confirmed_at
    FROM settlement_lines l CROSS JOIN unnest($4::text[]) AS k(kind)
    WHERE l.contributor_id = $1 AND l.created_at < $3
    UNION ALL
    SELECT $5::text, $6::text || a.reference, a.reference, NULL::uuid, NULL::uuid, NULL::numeric, NULL::uuid, NULL::timestamptz
    FROM contributor_adjustments a
    WHERE a.contributor_id = $1 AND a.created_at < $3
    UNION ALL
    SELECT $7::text, $8::text || r.refund_id, r.refund_id, NULL::uuid, NULL::uuid, NULL::numeric, NULL::uuid, NULL::timestamptz
    FROM refunds r
    WHERE r.contributor_id = $1 AND r.created_at < $3),
  entries AS (
    SELECT e.id, e.kind, e.ref, e.created_at, e.memo, r.reference, r.payout_id, r.settlement_id, r.amount_micro_usdc, r.tx_id, r.confirmed_at,
           (SELECT coalesce(sum(p.amount), 0) FROM unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
            WHERE p.code = ANY($2::text[])) AS owed_delta_atto
    FROM refs r JOIN journal_entries e ON e.kind = r.kind AND e.ref = r.ref
    WHERE e.created_at < $3)`;

/** $4-$8 of CONTRIBUTOR_ENTRIES_CTE: the settlement line kinds shown, then kind and ref prefix of adjustments and refunds. */
const CATALOGUE_PARAMS: readonly unknown[] = Object.freeze([
  [...STATEMENT_LINE_KINDS],
  'adjustment' satisfies JournalKind,
  CONTRIBUTOR_ADJUSTMENT_REF_PREFIX,
  'refund' satisfies JournalKind,
  REFUND_REF_PREFIX,
]);

interface EntryRow {
  id: string;
  kind: string;
  ref: string;
  created_at: Date;
  memo: string | null;
  reference: string | null;
  payout_id: string | null;
  settlement_id: string | null;
  amount_micro_usdc: string | null;
  tx_hash: string | null;
  confirmed_at: Date | null;
  owed_delta_atto: string;
}

function bookedLineOf(row: EntryRow): BookedLine {
  const kind = bookedKindOf(row.kind);
  assert(kind !== null, `journal kind ${row.kind} has no place on a statement`);
  return {
    kind,
    entryId: toBigInt(row.id),
    journalKind: row.kind,
    ref: row.ref,
    bookedAt: row.created_at,
    owedDeltaAtto: toBigInt(row.owed_delta_atto),
    reference: row.reference,
    memo: row.memo,
    payout:
      row.payout_id === null
        ? null
        : {
            payoutId: row.payout_id,
            settlementId: row.settlement_id!,
            amountMicroUsdc: toBigInt(row.amount_micro_usdc),
            txHash: row.tx_hash,
            confirmedAt: row.confirmed_at,
          },
  };
}

/**
 * The facts of a monthly statement, read in one snapshot (DatabaseService.readSnapshot, the
 * reports' read path). Reads across the tables of several domains on purpose: the statement must
 * be one consistent picture of the rollup, the journal and the settlement lines, which separate
 * service calls (separate snapshots) could not give. Earnings come from contributor_usage_daily
 * (dated by when the usage occurred, as /earnings); everything else from journal_entries (dated by
 * when it was booked).
 */
@Injectable()
export class StatementsRepository {
  constructor(private readonly db: DatabaseService) {}

  async contributorExists(contributorId: string): Promise<boolean> {
    const result = await this.db.pool.query('SELECT 1 FROM contributors WHERE id = $1', [contributorId]);
    return result.rowCount === 1;
  }

  async statementFacts(input: { contributorId: string; period: StatementMonth; owedAccountCodes: string[] }): Promise<StatementFacts> {
    return this.db.readSnapshot(async (client) => {
      const fromDay = input.period.from.toISOString().slice(0, 10);
      const toDay = input.period.to.toISOString().slice(0, 10);
      const [earnings, earnedBeforeAtto, bookedBeforeAtto, booked] = [
        await this.earningRows(client, input.contributorId, fromDay, toDay),
        await this.earnedBefore(client, input.contributorId, fromDay),
        await this.bookedBefore(client, input.contributorId, input.owedAccountCodes, input.period.from),
        await this.bookedLines(client, input.contributorId, input.owedAccountCodes, input.period),
      ];
      return { contributorId: input.contributorId, period: input.period, earnings, earnedBeforeAtto, bookedBeforeAtto, booked };
    });
  }

  private async earningRows(client: SqlClient, contributorId: string, fromDay: string, toDay: string): Promise<EarningRow[]> {
    const result = await client.query<{ day: string; model: string; events: string; prompt_tokens: string; completion_tokens: string; official_atto: string; earned_atto: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto
       FROM contributor_usage_daily
       WHERE contributor_id = $1 AND day >= $2::date AND day < $3::date
       ORDER BY day, model COLLATE "C"
       LIMIT $4`,
      [contributorId, fromDay, toDay, STATEMENT_EARNING_ROWS_MAX + 1],
    );
    if (result.rows.length > STATEMENT_EARNING_ROWS_MAX) throw new StatementTooLarge(`more than ${STATEMENT_EARNING_ROWS_MAX} earnings rows in one month`);
    return result.rows.map((row) => ({
      day: row.day,
      model: row.model,
      events: toBigInt(row.events),
      promptTokens: toBigInt(row.prompt_tokens),
      completionTokens: toBigInt(row.completion_tokens),
      officialAtto: toBigInt(row.official_atto),
      earnedAtto: toBigInt(row.earned_atto),
    }));
  }

  private async earnedBefore(client: SqlClient, contributorId: string, fromDay: string): Promise<bigint> {
    const result = await client.query<{ earned_atto: string }>(
      'SELECT coalesce(sum(earned_atto), 0) AS earned_atto FROM contributor_usage_daily WHERE contributor_id = $1 AND day < $2::date',
      [contributorId, fromDay],
    );
    return toBigInt(result.rows[0]!.earned_atto);
  }

  private async bookedBefore(client: SqlClient, contributorId: string, owedAccountCodes: string[], from: Date): Promise<bigint> {
    const result = await client.query<{ owed_delta_atto: string }>(
      `WITH ${CONTRIBUTOR_ENTRIES_CTE}
       SELECT coalesce(sum(owed_delta_atto), 0) AS owed_delta_atto FROM entries`,
      [contributorId, owedAccountCodes, from, ...CATALOGUE_PARAMS],
    );
    return toBigInt(result.rows[0]!.owed_delta_atto);
  }

  private async bookedLines(client: SqlClient, contributorId: string, owedAccountCodes: string[], period: StatementMonth): Promise<BookedLine[]> {
    const result = await client.query<EntryRow>(
      `WITH ${CONTRIBUTOR_ENTRIES_CTE}
       SELECT x.id, x.kind, x.ref, x.created_at, x.memo, x.reference, x.payout_id, x.settlement_id, x.amount_micro_usdc,
              t.tx_hash, x.confirmed_at, x.owed_delta_atto
       FROM entries x LEFT JOIN settlement_txs t ON t.id = x.tx_id
       WHERE x.created_at >= $9
       ORDER BY x.created_at, x.id
       LIMIT $10`,
      [contributorId, owedAccountCodes, period.to, ...CATALOGUE_PARAMS, period.from, STATEMENT_BOOKED_LINES_MAX + 1],
    );
    if (result.rows.length > STATEMENT_BOOKED_LINES_MAX) throw new StatementTooLarge(`more than ${STATEMENT_BOOKED_LINES_MAX} booked lines in one month`);
    return result.rows.map(bookedLineOf);
  }
}
