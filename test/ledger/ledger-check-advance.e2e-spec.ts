// The checkpointed ledger check (GET /v1/admin/ledger/check without full) writes the first
// checkpoint itself (before, a journal whose checkpoint job had not run yet was summed in full on
// every check: issue 25, 18.8 s with nothing new). When it passed after reading many entries after
// the checkpoint, it answers from that checkpoint and asks the worker's ledger-checkpoint job to move
// it (issue 35: the request no longer writes it, under the journal's SHARE lock); the job's write
// (POST /v1/admin/ledger/checkpoints runs the same) then moves it. A failing check never moves it.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { LEDGER_CHECKPOINT_ADVANCE_JOB_ID } from '../../src/modules/ledger/ledger-checkpoint-queue.producer.js';
import { CHECKPOINT_ADVANCE_ENTRIES } from '../../src/modules/ledger/ledger-checkpoint.service.js';
import { JOB_LEDGER_CHECKPOINT, QUEUE_HISTORY } from '../../src/queue/queue-names.js';
import { TEST_REDIS_URL } from '../support/test-worker.js';
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

  // What the worker's history queue holds: the advance a check asked for (no worker runs here).
  let redis: Redis;
  let history: Queue;
  const advanceAsked = async () => (await history.getJob(LEDGER_CHECKPOINT_ADVANCE_JOB_ID))?.name ?? null;
  const runTheJob = async () => {
    // The job's work (HistoryProcessor.checkpoint), then it is gone as a finished job would be.
    await t.admin(t.http.post('/v1/admin/ledger/checkpoints')).expect(200);
    await (await history.getJob(LEDGER_CHECKPOINT_ADVANCE_JOB_ID))?.remove();
  };

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    history = new Queue(QUEUE_HISTORY, { connection: redis, prefix: t.queuePrefix });
    await post('adv-1');
    await post('adv-2');
  });

  afterAll(async () => {
    await history?.obliterate({ force: true }).catch(() => undefined);
    await history?.close();
    redis?.disconnect();
  });

  it('writes the first checkpoint itself, then reads only the entries after it', async () => {
    expect(await checkpoints()).toEqual([]);
    const first = await check();
    expect(first).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { intact: true, entries_since: 0 } });
    const [id] = await checkpoints();
    expect(first.checkpoint.id).toBe(id);
    await post('adv-3');
    expect(await check()).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { id, entries_since: 1 } });
    expect(await advanceAsked()).toBeNull();
    // Many entries after it: this check reads them once and answers from the same checkpoint; it
    // asks the worker to move it.
    await manyEntries(CHECKPOINT_ADVANCE_ENTRIES, 'adv-many-');
    const read = await check();
    expect(read).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { id, intact: true, entries_since: 1 + Number(CHECKPOINT_ADVANCE_ENTRIES) } });
    expect(read.journal_entries).toBe(first.journal_entries + 1 + Number(CHECKPOINT_ADVANCE_ENTRIES));
    expect(await checkpoints()).toEqual([id]);
    expect(await advanceAsked()).toBe(JOB_LEDGER_CHECKPOINT);
    // Asked again by the next check while the job waits: still one job.
    await check();
    expect((await history.getJobs(['waiting', 'delayed', 'prioritized'])).filter((j) => j.id === LEDGER_CHECKPOINT_ADVANCE_JOB_ID)).toHaveLength(1);
    await runTheJob();
    const moved = await check();
    expect(moved).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { intact: true, entries_since: 0 } });
    expect(moved.checkpoint.id).not.toBe(id);
    expect(moved.journal_entries).toBe(read.journal_entries);
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
      // A failing check asks for no advance, and the job's write refuses to build on it.
      expect(await advanceAsked()).toBeNull();
      expect((await t.admin(t.http.post('/v1/admin/ledger/checkpoints'))).status).not.toBe(200);
      expect(await checkpoints()).toEqual(before);
      expect((await check()).ok).toBe(false);
    } finally {
      await sql.query(`UPDATE accounts SET balance_atto = balance_atto - 1 WHERE code = 'user:u_42'`);
    }
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: Number(CHECKPOINT_ADVANCE_ENTRIES) } });
    expect(await advanceAsked()).toBe(JOB_LEDGER_CHECKPOINT);
    await runTheJob();
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 0 } });
    expect(await checkpoints()).not.toEqual(before);
  });

  it('takes no journal lock once a checkpoint exists: answers at once while a writer holds the journal', async () => {
    const before = await checkpoints();
    await manyEntries(CHECKPOINT_ADVANCE_ENTRIES, 'adv-locked-');
    await whileTableWritten(t.databaseUrl, 'journal_entries', async () => {
      const started = Date.now();
      const answer = await check();
      // Before issue 25's fix the check waited 5 s for the lock, and every journal writer queued behind it.
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(answer).toMatchObject({ ok: true, mode: 'checkpoint', checkpoint: { entries_since: Number(CHECKPOINT_ADVANCE_ENTRIES) } });
      expect(await checkpoints()).toEqual(before);
    });
    await runTheJob();
    expect(await check()).toMatchObject({ ok: true, checkpoint: { entries_since: 0 } });
  });
});
