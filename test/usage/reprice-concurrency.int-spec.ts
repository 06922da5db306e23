// Issue 14 item 12: a reprice that found rows locked skipped them (FOR UPDATE SKIP LOCKED) and
// answered `priced: 0, still_unpriced: N` while another call was pricing them. Reprices now run one at
// a time (an advisory lock): a concurrent call answers `in_progress: true`, and the running one waits
// for a locked row instead of skipping it.
import pg from 'pg';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

const LATE_MODEL = 'acme/late-model';
const EVENTS = 30;

describe('concurrent reprice', () => {
  let t: TestApp;
  let holder: pg.Client;
  let observer: pg.Client;

  beforeAll(async () => {
    t = await startTestApp('reprice_concurrency');
    await seedBilling(t);
    holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    observer = new pg.Client({ connectionString: t.databaseUrl });
    await observer.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await observer?.end();
    await t?.close();
  });

  it('answers in_progress to a call made while another runs, and the running one prices every row, locked ones included', async () => {
    const events = Array.from({ length: EVENTS }, (_, i) => exampleEvent({ event_id: `late-${i}`, model: LATE_MODEL }));
    const batch = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events }).expect(200);
    expect(batch.body.results.every((r: { status: string }) => r.status === 'unpriced')).toBe(true);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: LATE_MODEL, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);

    // Another transaction holds one of the rows (as a concurrent reprice's chunk would).
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query("SELECT id FROM usage_events WHERE event_id = 'late-7' FOR UPDATE");
    const running = t.admin(t.http.post('/v1/admin/usage-events/reprice')).then((res) => res);
    // Only once that call holds the reprice lock and waits for the row: a concurrent call sent before
    // it arrived would take the lock itself and wait for the held row until the statement timeout.
    await waitFor(async () => {
      const waiting = await observer.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' AND pid <> $1`,
        [holderPid],
      );
      return waiting.rowCount === 1;
    });
    // While the first call waits for that row, every other call says so rather than "nothing to price".
    const concurrent = await waitFor(async () => {
      const res = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
      return res.body.in_progress === true ? res.body : null;
    });
    expect(concurrent).toEqual({ priced: 0, still_unpriced: expect.any(Number), in_progress: true });
    await holder.query('ROLLBACK');

    const first = await running;
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ priced: EVENTS, still_unpriced: 0, in_progress: false });
    const after = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(after.body).toEqual({ priced: 0, still_unpriced: 0, in_progress: false });
    await expectLedgerClean(t);
  });
});
