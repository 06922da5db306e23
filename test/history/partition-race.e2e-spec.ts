// Creating a month's partition under full write load (issue 24, item 1; docs/reliability.md).
// Writers post events over HTTP (single and batch, several connections) for months that have no
// partition yet, so they land in usage_events_default, while other connections create those
// months' partitions one after the other, several callers at once. Afterwards: every event
// answered priced is readable by GET with its amounts, a replay answers 200, no writer got a 5xx,
// no creation failed (23514), every month has its partition and the default one is empty, and
// the full ledger check is ok. The old function (copy, delete, attach under a lock writers do not
// take) lost events here and failed with 23514.
import pg from 'pg';
import { DatabaseService } from '../../src/database/database.service.js';
import { UsagePartitionsRepository } from '../../src/modules/history/usage-partitions.repository.js';
import { seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MODEL = 'acme/race-model';
// 2025-01 .. 2026-10: no partition exists for them (the template has the current month and 3 ahead).
const MONTHS = Array.from({ length: 22 }, (_, i) => `${2025 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`);
const WRITERS = 6;
const CREATORS = 2;
const BATCH_EVENTS = 20;
const WARMUP_MS = 1_500;
const BETWEEN_MONTHS_MS = 120;
const GET_CONCURRENCY = 12;
const REPLAYS_CHECKED = 150;
// 503 `unavailable` (e.g. a connection not made within its timeout on this busy shared machine)
// is the answer a client resends; reads and replays are resent that many times.
const UNAVAILABLE_RESENDS_MAX = 3;

interface Accepted {
  eventId: string;
  chargeUsd: string | null;
  body: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function resendingUnavailable(send: () => Promise<{ status: number }>) {
  for (let attempt = 1; ; attempt++) {
    const r = await send();
    if (r.status !== 503 || attempt > UNAVAILABLE_RESENDS_MAX) return r;
    await sleep(200 * attempt);
  }
}

describe('usage_events partitions created under write load', () => {
  let t: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    t = await startTestApp('partition_race');
    pool = new pg.Pool({ connectionString: t.databaseUrl, max: CREATORS + 2 });
    await seedBilling(t, { userCreditUsd: '100000' });
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: MODEL, input_usd_per_mtok: '1.5', output_usd_per_mtok: '6', effective_from: '2024-06-01T00:00:00Z' }).expect(201);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await t?.close();
  });

  it('loses no accepted event, never fails a creation, leaves no month without its partition', async () => {
    let stop = false;
    const accepted = new Map<string, Accepted>();
    const sent = new Map<string, Record<string, unknown>>();
    const serverErrors: string[] = [];
    let unavailable = 0;
    let counter = 0;
    const eventFor = (writer: number) => {
      const n = counter++;
      const month = MONTHS[(n * 7 + writer) % MONTHS.length]!;
      const event = {
        event_id: `race-${writer}-${n}`,
        user_id: 'u_42',
        contributor_id: n % 2 ? 'c_prem' : 'c_std',
        model: MODEL,
        occurred_at: `${month}-${String(1 + (n % 28)).padStart(2, '0')}T${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00Z`,
        usage: { prompt_tokens: 1000 + (n % 500), completion_tokens: 100 + (n % 50), cached_tokens: 0, reasoning_tokens: 0 },
      };
      sent.set(event.event_id, event);
      return event;
    };
    const writer = async (w: number) => {
      for (let round = 0; !stop; round++) {
        if (round % 4 === 0) {
          const event = eventFor(w);
          const r = await t.admin(t.http.post('/v1/usage-events')).send(event);
          if (r.status === 503) unavailable++;
          else if (r.status >= 500) serverErrors.push(`single ${r.status} ${JSON.stringify(r.body)}`);
          else if (r.status === 201 && r.body.status === 'priced') accepted.set(event.event_id, { eventId: event.event_id, chargeUsd: r.body.charge_usd, body: r.body });
        } else {
          const events = Array.from({ length: BATCH_EVENTS }, () => eventFor(w));
          const r = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events });
          if (r.status === 503) unavailable++;
          else if (r.status >= 500) serverErrors.push(`batch ${r.status} ${JSON.stringify(r.body)}`);
          else if (r.status === 200) {
            for (const item of r.body.results as Array<{ event_id: string; status: string }>) {
              if (item.status === 'priced') accepted.set(item.event_id, { eventId: item.event_id, chargeUsd: null, body: {} });
            }
          }
        }
      }
    };
    const creationErrors: string[] = [];
    const creator = async (c: number) => {
      await sleep(WARMUP_MS);
      for (const month of c % 2 ? [...MONTHS].reverse() : MONTHS) {
        try {
          await pool.query(`SELECT usage_events_ensure_partition($1::timestamptz)`, [`${month}-01T00:00:00Z`]);
        } catch (error) {
          creationErrors.push(`${month}: ${(error as pg.DatabaseError).code ?? ''} ${(error as Error).message}`);
        }
        await sleep(BETWEEN_MONTHS_MS);
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await Promise.all(Array.from({ length: CREATORS }, (_, c) => creator(c)));
    // Writes go on a little after the last creation, then the job's own pass (months holding rows).
    await sleep(300);
    stop = true;
    await Promise.all(writers);
    await new UsagePartitionsRepository(t.app.get(DatabaseService)).ensureAhead(new Date(), 3);

    expect(accepted.size).toBeGreaterThan(500);
    // A few 503s under machine load are answers a client resends, not lost events; never most.
    expect(unavailable).toBeLessThan(accepted.size / 20);

    // Every key has its row (nothing answered priced was deleted), and the default partition is empty.
    const orphans = await pool.query<{ event_id: string }>(
      `SELECT k.event_id FROM usage_event_keys k LEFT JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at WHERE e.id IS NULL ORDER BY 1`,
    );
    const inDefault = (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default`)).rows[0]!.n;
    const parts = await pool.query<{ relname: string }>(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_events'::regclass`);
    const names = new Set(parts.rows.map((r) => r.relname));

    // Every accepted event answers GET 200, priced, with the amounts it was answered with.
    const ids = [...accepted.keys()];
    const unreadable: string[] = [];
    for (let i = 0; i < ids.length; i += GET_CONCURRENCY) {
      await Promise.all(
        ids.slice(i, i + GET_CONCURRENCY).map(async (id) => {
          const r = (await resendingUnavailable(() => t.admin(t.http.get(`/v1/usage-events/${id}`)))) as { status: number; body: Record<string, unknown> };
          const want = accepted.get(id)!;
          if (r.status !== 200 || r.body.status !== 'priced' || (want.chargeUsd !== null && r.body.charge_usd !== want.chargeUsd)) unreadable.push(`${id}: ${r.status}`);
        }),
      );
    }

    // Replays (single path) answer 200 with the original answer: those of single sends and of batch items.
    const singles = [...accepted.values()].filter((a) => a.chargeUsd !== null).slice(0, REPLAYS_CHECKED);
    const batchOnes = [...accepted.values()].filter((a) => a.chargeUsd === null).slice(0, REPLAYS_CHECKED);
    const badReplays: string[] = [];
    for (const a of [...singles, ...batchOnes]) {
      const r = (await resendingUnavailable(() => t.admin(t.http.post('/v1/usage-events')).send(sent.get(a.eventId)!))) as { status: number; body: unknown; headers: Record<string, string> };
      const same = a.chargeUsd === null || JSON.stringify(r.body) === JSON.stringify(a.body);
      if (r.status !== 200 || r.headers['idempotent-replayed'] !== 'true' || !same) badReplays.push(`${a.eventId}: ${r.status}`);
    }

    const check = await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200);
    // All of it at once, so a failure shows every consequence.
    expect({
      serverErrors,
      creationErrors,
      keysWithoutRow: orphans.rows.map((r) => r.event_id),
      rowsLeftInDefault: inDefault,
      monthsWithoutPartition: MONTHS.filter((m) => !names.has(`usage_events_${m.replace('-', '_')}`)),
      unreadable,
      badReplays,
      ledgerCheckOk: check.body.ok,
      rollupsOk: check.body.rollups?.ok,
    }).toEqual({
      serverErrors: [],
      creationErrors: [],
      keysWithoutRow: [],
      rowsLeftInDefault: '0',
      monthsWithoutPartition: [],
      unreadable: [],
      badReplays: [],
      ledgerCheckOk: true,
      rollupsOk: true,
    });
  }, 240_000);

  it('the usage-partitions job gives every month waiting in the default partition its partition', async () => {
    const late = { event_id: 'late-2024-07', user_id: 'u_42', contributor_id: 'c_std', model: MODEL, occurred_at: '2024-07-04T10:00:00Z', usage: { prompt_tokens: 10, completion_tokens: 5 } };
    await t.admin(t.http.post('/v1/usage-events')).send(late).expect(201);
    expect((await pool.query(`SELECT 1 FROM usage_events_default WHERE occurred_at < '2024-08-01'`)).rowCount).toBe(1);
    const partitions = new UsagePartitionsRepository(t.app.get(DatabaseService));
    expect(await partitions.ensureAhead(new Date(), 3)).toEqual(['2024-07']);
    expect(await partitions.ensureAhead(new Date(), 3)).toEqual([]);
    expect((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default`)).rows[0]!.n).toBe('0');
    expect((await pool.query(`SELECT 1 FROM usage_events_2024_07 WHERE event_id = 'late-2024-07'`)).rowCount).toBe(1);
    await t.admin(t.http.get('/v1/usage-events/late-2024-07')).expect(200);
  });
});
