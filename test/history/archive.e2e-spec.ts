// npm run archive on a real database: refuses unpriced and unsettled months, writes verified files
// and a manifest, drops the partitions; afterwards the ledger check (full and from a checkpoint),
// balances, rollups and earnings are unchanged to the atto (the budgets' spend rollup loses the
// archived months, as budgets read the stored events), and a replayed archived event gets a
// 410 with its original amounts (a changed payload still a 409, a batch replay a duplicate).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveRefused, archiveUsage, readArchiveFile } from '../../scripts/lib/usage-archive.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { UsagePartitionsRepository } from '../../src/modules/history/usage-partitions.repository.js';
import { LedgerCheckService } from '../../src/modules/ledger/ledger-check.service.js';
import { archiveSuite } from '../support/archive-fixtures.js';
import { exampleEvent, GPT4O } from '../support/billing-fixtures.js';

const UNPRICED_MODEL = 'acme/late-priced';

describe('npm run archive', () => {
  const archiveApp = archiveSuite('history_archive', { userCreditUsd: '1000' });
  const { t, db } = archiveApp;


  const archive = () => archiveUsage({ databaseUrl: t.databaseUrl, before: '2026-10', outDir: archiveApp.outDir, maturityDays: 0 });
  // Without timings_ms (how long each section took): the rest must be equal to the atto.
  const withoutTimings = ({ timings_ms: _t, ...body }: Record<string, unknown>) => body;
  const checkFull = async () => withoutTimings((await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200)).body);
  const check = async () => (await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200)).body;
  const earnings = async () => (await t.admin(t.http.get('/v1/contributors/c_std/earnings?from=2026-08-01&to=2026-11-30')).expect(200)).body;
  const balances = async () => (await db.query(`SELECT code, balance_atto, held_atto FROM accounts ORDER BY code`)).rows;

  it('archives two settled months exactly and answers their replays', async () => {
    // A user with a budget: the archive drops the months' rows of the spend rollup with the events.
    await t.admin(t.http.put('/v1/admin/users/u_42/budgets/all')).send({ limit_usd: '1000', period: 'total', action: 'notify' }).expect(201);
    // Events of 2026-08 and 2026-09 (no partition yet: they wait in the default one) and of today.
    const single = exampleEvent({ event_id: 'arc-single', occurred_at: '2026-08-10T10:00:00Z' });
    const created = await t.admin(t.http.post('/v1/usage-events')).send(single).expect(201);
    const batch = Array.from({ length: 30 }, (_, i) =>
      exampleEvent({ event_id: `arc-b${i}`, contributor_id: i % 2 ? 'c_prem' : 'c_std', occurred_at: i < 15 ? `2026-08-${10 + (i % 15)}T0${i % 10}:00:00Z` : `2026-09-${10 + (i % 15)}T12:00:00Z` }),
    );
    batch.push(exampleEvent({ event_id: 'arc-unpriced', model: UNPRICED_MODEL, occurred_at: '2026-09-30T23:59:59Z' }));
    batch.push(exampleEvent({ event_id: 'arc-now', occurred_at: new Date(Date.now() - 60_000).toISOString() }));
    const answered = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: batch }).expect(200);
    expect(answered.body.results.filter((r: { status: string }) => r.status === 'unpriced')).toHaveLength(1);
    const defaults = await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default`);
    expect(defaults.rows[0]!.n).toBe('32');
    // The partitions job's function moves them into their months.
    await db.query(`SELECT usage_events_ensure_partition('2026-08-01T00:00:00Z'), usage_events_ensure_partition('2026-09-01T00:00:00Z')`);
    expect((await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default`)).rows[0]!.n).toBe('0');

    // Refused: an unpriced event in 2026-09 (nothing archived).
    await expect(archive()).rejects.toThrow(ArchiveRefused);
    await expect(archive()).rejects.toThrow(/2026-09: 1 unpriced events/);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: UNPRICED_MODEL, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.post('/v1/admin/usage-events/reprice')).send({}).expect(200);
    // Refused: no settlement has run since the months ended.
    await expect(archive()).rejects.toThrow(/2026-08: unsettled/);
    expect((await db.query(`SELECT 1 FROM pg_class WHERE relname = 'usage_events_2026_08'`)).rowCount).toBe(1);
    await db.query(`INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval, created_at, completed_at)
                    VALUES (gen_random_uuid(), 'confirmed', 'admin', 0, 0, false, now(), now())`);

    // A verified checkpoint, then what must not change.
    await t.app.get(LedgerCheckService).writeCheckpoint();
    const fullBefore = await checkFull();
    expect(fullBefore.ok).toBe(true);
    const earningsBefore = await earnings();
    const balancesBefore = await balances();
    const stored = await db.query<{ month: string; n: string; official: string; charge: string; payout: string; margin: string }>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*) AS n, sum(official_atto) AS official, sum(charge_atto) AS charge,
              sum(payout_atto) AS payout, sum(margin_atto) AS margin FROM usage_events WHERE occurred_at < '2026-10-01' GROUP BY 1 ORDER BY 1`,
    );
    expect(stored.rows.map((r) => [r.month, r.n])).toEqual([['2026-08', '16'], ['2026-09', '16']]);

    const archived = await archive();
    expect(archived.map((m) => [m.month, m.rows])).toEqual([['2026-08', 16n], ['2026-09', 16n]]);

    // Files and manifest: the database's own sums, re-read from disk.
    const manifest = JSON.parse(await readFile(join(archiveApp.outDir, 'manifest.json'), 'utf8'));
    for (const row of stored.rows) {
      const entry = manifest.months[row.month];
      expect(entry).toMatchObject({ rows: row.n, official_atto: row.official, charge_atto: row.charge, payout_atto: row.payout, margin_atto: row.margin, format: 'ndjson.gz' });
      const reread = await readArchiveFile(join(archiveApp.outDir, entry.file));
      expect(reread).toMatchObject({ sha256: entry.sha256, rows: BigInt(row.n), chargeAtto: BigInt(row.charge) });
    }
    expect((await db.query(`SELECT 1 FROM pg_class WHERE relname IN ('usage_events_2026_08', 'usage_events_2026_09')`)).rowCount).toBe(0);
    expect((await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events`)).rows[0]!.n).toBe('1');
    expect((await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_event_keys`)).rows[0]!.n).toBe('33');

    // Unchanged to the atto: the ledger (full and from the checkpoint), balances, rollups, earnings.
    const { spend_rollup: spendAfter, ...fullAfter } = await checkFull();
    const { spend_rollup: spendBefore, ...ledgerBefore } = fullBefore;
    expect(fullAfter).toEqual(ledgerBefore);
    expect(fullAfter.rollups as object).toMatchObject({ ok: true, mismatched: [] });
    // The spend rollup now holds the stored events only (budgets count what usage_events holds).
    expect(spendAfter).toMatchObject({ ok: true, mismatched: [] });
    expect(Number((spendAfter as { rollup_rows: string }).rollup_rows)).toBeLessThan(Number((spendBefore as { rollup_rows: string }).rollup_rows));
    expect((await db.query(`SELECT 1 FROM user_spend_daily WHERE day < '2026-10-01'`)).rowCount).toBe(0);
    const fromCheckpoint = await check();
    expect(fromCheckpoint).toMatchObject({ ok: true, mode: 'checkpoint', journal_entries: fullBefore.journal_entries, checkpoint: { intact: true, entries_since: 0 } });
    expect(await balances()).toEqual(balancesBefore);
    expect(await earnings()).toEqual(earningsBefore);

    // Replays of an archived event: 410 with its original amounts; another payload 409; batch duplicate.
    const replay = await t.admin(t.http.post('/v1/usage-events')).send(single).expect(410);
    expect(replay.body.error).toMatchObject({
      code: 'event_archived',
      details: { event_id: 'arc-single', archived_month: '2026-08', charge_usd: created.body.charge_usd, payout_usd: created.body.payout_usd, margin_usd: created.body.margin_usd, user_id: 'u_42', contributor_id: 'c_std' },
    });
    await t.admin(t.http.post('/v1/usage-events')).send({ ...single, usage: { ...single.usage, prompt_tokens: 1201 } }).expect(409);
    const batchReplay = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: [single, { ...batch[3], model: GPT4O }] }).expect(200);
    expect(batchReplay.body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate']);
    await t.admin(t.http.get('/v1/usage-events/arc-single')).expect(410);
    expect(await balances()).toEqual(balancesBefore);
    // Nothing is left to archive before 2026-10.
    expect(await archive()).toEqual([]);
  }, 180_000);

  it('checks from the newest checkpoint, reads only what follows it, and notices a tampered checkpoint', async () => {
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'after-cp-1', occurred_at: new Date(Date.now() - 1000).toISOString() })).expect(201);
    const since = await check();
    expect(since).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { intact: true, entries_since: 1 } });
    const written = await t.app.get(LedgerCheckService).writeCheckpoint();
    expect(written).not.toBeNull();
    expect(await t.app.get(LedgerCheckService).writeCheckpoint()).toBeNull();
    expect(await check()).toMatchObject({ ok: true, checkpoint: { id: written!.id.toString(), entries_since: 0 } });
    // Move one atto between two accounts of the checkpoint (its total stays zero): the digest no longer matches.
    const id = written!.id.toString();
    const two = await db.query<{ account_code: string }>(`SELECT account_code FROM ledger_checkpoint_balances WHERE checkpoint_id = $1 ORDER BY account_code LIMIT 2`, [id]);
    await db.query(`UPDATE ledger_checkpoint_balances SET total_atto = total_atto + CASE WHEN account_code = $2 THEN 1 ELSE -1 END WHERE checkpoint_id = $1 AND account_code = ANY($3)`, [id, two.rows[0]!.account_code, two.rows.map((r) => r.account_code)]);
    const tampered = await check();
    expect(tampered).toMatchObject({ ok: false, mode: 'checkpoint', checkpoint: { intact: false } });
    expect(tampered.mismatched_accounts.length).toBe(2);
    expect(tampered.timings_ms).toMatchObject({ ledger: expect.any(Number), rollups: expect.any(Number) });
    expect(await checkFull()).toMatchObject({ ok: true, mode: 'full', checkpoint: null });
    // No checkpoint is built on a tampered one.
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'after-cp-2', occurred_at: new Date(Date.now() - 1000).toISOString() })).expect(201);
    await expect(t.app.get(LedgerCheckService).writeCheckpoint()).rejects.toThrow(/no longer matches its digest/);
    await t.admin(t.http.get('/v1/admin/ledger/check?full=maybe')).expect(400);
  }, 120_000);

  it('creates the partitions ahead that the usage-partitions job asks for, once', async () => {
    const partitions = new UsagePartitionsRepository(t.app.get(DatabaseService));
    const at = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 5, 15));
    const year = at.getUTCFullYear();
    expect(await partitions.ensureAhead(at, 2)).toEqual([`${year}-06`, `${year}-07`, `${year}-08`]);
    expect(await partitions.ensureAhead(at, 2)).toEqual([]);
    const listed = await partitions.list();
    expect(listed.map((p) => p.month)).toContain(`${year}-07-01`);
    expect(listed.at(-1)).toMatchObject({ name: 'usage_events_default', month: null });
  });
});
