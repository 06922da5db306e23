// What the checkpointed ledger check (GET /v1/admin/ledger/check without full) relies on, and who
// finds each change made behind the journal's back (issue 35: the check reads only the entries
// after its checkpoint, once, and no longer moves the checkpoint itself):
// - an entry after the checkpoint changed: the check (its postings no longer equal the balances),
//   and the worker's checkpoint write refuses to build on it;
// - the checkpoint's own balance rows changed: the check (their digest);
// - an entry at or below the checkpoint changed: ?full=true (every posting) and the worker's daily
//   proof of the whole journal (ledger-full-proof, announced as ledger.check_failed), not the
//   checkpointed check: the checkpoint was proven against those entries when it was written.
import { LedgerCheckService } from '../../src/modules/ledger/ledger-check.service.js';
import { billingSuite, exampleEvent } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';

describe('checkpointed ledger check: tampering below and above the checkpoint', () => {
  const t = billingSuite('ledger_check_tamper');
  const sql = suiteSql(t);
  const check = async (full = false) => (await t.admin(t.http.get(`/v1/admin/ledger/check${full ? '?full=true' : ''}`)).expect(200)).body;
  const writeCheckpoint = () => t.admin(t.http.post('/v1/admin/ledger/checkpoints'));
  const post = (id: string) => t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: id, occurred_at: new Date(Date.now() - 1000).toISOString() })).expect(201);
  const checkpointIds = async () => (await sql.query<{ id: string }>('SELECT id FROM ledger_checkpoints ORDER BY id')).rows.map((r) => r.id);
  const lastUsageEntry = async () => (await sql.query<{ id: string }>(`SELECT max(id) AS id FROM journal_entries WHERE kind = 'usage'`)).rows[0]!.id;
  /** Moves `atto` from the entry's first posting to its second: still balanced (the CHECK holds), other accounts. */
  const shiftPosting = async (entryId: string, atto: number) => {
    await sql.query('BEGIN');
    await sql.query('ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_no_update_delete');
    await sql.query('UPDATE journal_entries SET amounts_atto[1] = amounts_atto[1] + $2, amounts_atto[2] = amounts_atto[2] - $2 WHERE id = $1', [entryId, atto]);
    await sql.query('ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_no_update_delete');
    await sql.query('COMMIT');
  };

  beforeAll(async () => {
    await post('tamper-1');
    await post('tamper-2');
    expect(await check()).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { entries_since: 0 } });
  });

  it('an entry at or below the checkpoint changed: found by ?full=true and the daily proof, not by the checkpointed check', async () => {
    const below = await lastUsageEntry();
    await shiftPosting(below, 1);
    try {
      // The worker's daily job (HistoryProcessor.proveJournal) runs this (a failure is announced as any failing check's).
      const proof = await t.app.get(LedgerCheckService, { strict: false }).proveJournalInFull();
      expect(proof.ok).toBe(false);
      expect(proof.mismatchedAccounts.length).toBeGreaterThanOrEqual(2);
      const full = await check(true);
      expect(full).toMatchObject({ ok: false, mode: 'full' });
      expect(full.mismatched_accounts.map((m: { account: string }) => m.account)).toEqual(proof.mismatchedAccounts.map((m) => m.account));
      // The checkpoint's sums were proven against the entry as it was: the check reads only what follows.
      expect(await check()).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { entries_since: 0 } });
    } finally {
      await shiftPosting(below, -1);
    }
    expect(await check(true)).toMatchObject({ ok: true });
  });

  it('an entry after the checkpoint changed: found by the check; the checkpoint write refuses to move past it', async () => {
    const before = await checkpointIds();
    await post('tamper-3');
    const above = await lastUsageEntry();
    await shiftPosting(above, 1);
    try {
      const found = await check();
      expect(found).toMatchObject({ ok: false, mode: 'checkpoint', checkpoint: { entries_since: 1 } });
      expect(found.mismatched_accounts.length).toBeGreaterThanOrEqual(2);
      expect((await writeCheckpoint()).status).not.toBe(200);
      expect(await checkpointIds()).toEqual(before);
    } finally {
      await shiftPosting(above, -1);
    }
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 1 } });
    expect((await writeCheckpoint().expect(200)).body).toMatchObject({ written: true });
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 0 } });
  });

  it("the checkpoint's balance rows changed: found by the check (their digest)", async () => {
    const [latest] = (await checkpointIds()).slice(-1);
    const row = (await sql.query<{ account_code: string }>('SELECT account_code FROM ledger_checkpoint_balances WHERE checkpoint_id = $1 ORDER BY account_code LIMIT 1', [latest])).rows[0]!;
    await sql.query('UPDATE ledger_checkpoint_balances SET total_atto = total_atto + 1 WHERE checkpoint_id = $1 AND account_code = $2', [latest, row.account_code]);
    try {
      expect(await check()).toMatchObject({ ok: false, mode: 'checkpoint', checkpoint: { intact: false } });
    } finally {
      await sql.query('UPDATE ledger_checkpoint_balances SET total_atto = total_atto - 1 WHERE checkpoint_id = $1 AND account_code = $2', [latest, row.account_code]);
    }
    expect(await check()).toMatchObject({ ok: true, checkpoint: { intact: true } });
  });
});
