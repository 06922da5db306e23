// The checkpointed ledger check (GET /v1/admin/ledger/check without full) moves its checkpoint to
// the journal's frontier when it had none or read many entries after it, and passed: the next
// check reads only what follows. Before, a journal whose checkpoint job had not run yet was summed
// in full on every check (issue 25: 18.8 s with nothing new). A failing check never moves it.
import { CHECKPOINT_ADVANCE_ENTRIES } from '../../src/modules/ledger/ledger-checkpoint.service.js';
import { billingSuite, exampleEvent } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { whileTableWritten } from './while-table-written.js';

describe('checkpointed ledger check: advancing the checkpoint', () => {
  const t = billingSuite('ledger_check_advance');
  const sql = suiteSql(t);
  const check = async () => (await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200)).body;
  const checkpoints = async () => (await sql.query<{ id: string }>('SELECT id FROM ledger_checkpoints ORDER BY id')).rows.map((r) => r.id);
  const post = (id: string) => t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: id, occurred_at: new Date(Date.now() - 1000).toISOString() })).expect(201);
  // Balanced entries between two untracked platform accounts: many entries, no balance moves.
  const manyEntries = (n: bigint, tag: string) =>
    sql.query(
      `INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto)
       SELECT 'test', $2 || n, ARRAY['platform:revenue', 'platform:adjustments'], ARRAY[1, -1]::numeric[] FROM generate_series(1, $1::int) AS n`,
      [n.toString(), tag],
    );

  beforeAll(async () => {
    await post('adv-1');
    await post('adv-2');
  });

  it('writes the first checkpoint itself, then reads only the entries after it', async () => {
    expect(await checkpoints()).toEqual([]);
    const first = await check();
    expect(first).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { intact: true, entries_since: 0 } });
    const [id] = await checkpoints();
    expect(first.checkpoint.id).toBe(id);
    await post('adv-3');
    expect(await check()).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { id, entries_since: 1 } });
    // Many entries after it: this check reads them, and moves the checkpoint past them.
    await manyEntries(CHECKPOINT_ADVANCE_ENTRIES, 'adv-many-');
    const moved = await check();
    expect(moved).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { intact: true, entries_since: 0 } });
    expect(moved.checkpoint.id).not.toBe(id);
    expect(moved.journal_entries).toBe(first.journal_entries + 1 + Number(CHECKPOINT_ADVANCE_ENTRIES));
    expect((await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200)).body).toMatchObject({ ok: true, mode: 'full', journal_entries: moved.journal_entries });
  });

  it('never moves it past a failing check: a stored balance changed behind the journal', async () => {
    const before = await checkpoints();
    await sql.query(`UPDATE accounts SET balance_atto = balance_atto + 1 WHERE code = 'user:u_42'`);
    try {
      await manyEntries(CHECKPOINT_ADVANCE_ENTRIES, 'adv-failing-');
      const drifted = await check();
      expect(drifted).toMatchObject({ ok: false, mode: 'checkpoint', checkpoint: { entries_since: Number(CHECKPOINT_ADVANCE_ENTRIES) } });
      expect(drifted.mismatched_accounts).toEqual([expect.objectContaining({ account: 'user:u_42' })]);
      expect(await checkpoints()).toEqual(before);
      expect((await check()).ok).toBe(false);
    } finally {
      await sql.query(`UPDATE accounts SET balance_atto = balance_atto - 1 WHERE code = 'user:u_42'`);
    }
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 0 } });
    expect(await checkpoints()).not.toEqual(before);
  });

  it('gives up the journal frontier lock quickly behind a writer, and keeps the answer it has', async () => {
    const before = await checkpoints();
    await manyEntries(CHECKPOINT_ADVANCE_ENTRIES, 'adv-locked-');
    await whileTableWritten(t.databaseUrl, 'journal_entries', async () => {
      const started = Date.now();
      const answer = await check();
      // Before, the check waited 5 s for the lock, and every journal writer queued behind it.
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(answer).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { entries_since: Number(CHECKPOINT_ADVANCE_ENTRIES) } });
      expect(await checkpoints()).toEqual(before);
    });
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 0 } });
  });
});
