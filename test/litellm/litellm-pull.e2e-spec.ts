// The pull path: the worker reads LiteLLM's "LiteLLM_SpendLogs" (created from LiteLLM's own
// schema.prisma, test/fixtures/litellm/spend_logs.sql, in a database of its own as LiteLLM keeps
// it) on its scheduler, under the push path's event id. Calls pushed and in the spend log are
// billed once; a call only in the spend log (a push LiteLLM dropped) is billed; a row written late
// inside the overlap is picked up. Real Postgres, Redis, HTTP app and worker.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expectLedgerClean } from '../support/billing-fixtures.js';
import { DEPLOYMENT_MAPPED, litellmPayload, MESSAGE_MARKER } from '../support/litellm-payloads.js';
import { adminQuery, databaseUrl, dropDatabase } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startTestWorker, waitFor } from '../support/test-worker.js';

const SPEND_LOGS_SQL = readFileSync(new URL('../fixtures/litellm/spend_logs.sql', import.meta.url), 'utf8');

/** A spend-log row as LiteLLM's get_logging_payload writes it for the payload (same call). */
function spendRow(id: string, endTime: string, extra: Record<string, unknown> = {}) {
  return {
    request_id: id,
    call_type: 'acompletion',
    api_key: 'hash-of-key-1',
    spend: 0.00022500000000000002,
    total_tokens: 30,
    prompt_tokens: 10,
    completion_tokens: 20,
    startTime: endTime,
    endTime,
    model: 'gpt-4o',
    model_id: DEPLOYMENT_MAPPED,
    model_group: 'gpt-4o',
    custom_llm_provider: 'openai',
    user: 'u_42',
    team_id: '',
    metadata: JSON.stringify({
      usage_object: { completion_tokens: 20, prompt_tokens: 10, total_tokens: 30, completion_tokens_details: null, prompt_tokens_details: null },
      model_map_information: { model_map_key: 'gpt-4o', model_map_value: null },
      status: 'success',
    }),
    cache_hit: 'False',
    status: 'success',
    // STORE_PROMPTS_IN_SPEND_LOGS on: LiteLLM's table holds the texts; the ledger must not copy them.
    messages: JSON.stringify([{ role: 'user', content: `${MESSAGE_MARKER} from the spend log` }]),
    response: JSON.stringify({ choices: [{ message: { content: `${MESSAGE_MARKER} reply` } }] }),
    ...extra,
  };
}

describe('LiteLLM pull: the spend-log backfill', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let litellmDb: pg.Client;
  const litellmDbName = `lt_litellm_src_${randomBytes(4).toString('hex')}`;
  const litellmUrl = databaseUrl(litellmDbName);
  const env = { LITELLM_DATABASE_URL: litellmUrl, LITELLM_BACKFILL_SECONDS: '1', LITELLM_BACKFILL_OVERLAP_SECONDS: '600', LITELLM_BACKFILL_FROM: '2026-11-30T00:00:00Z' };
  const get = (eventId: string) => t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`));
  const insertRow = async (row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    await litellmDb.query(`INSERT INTO "LiteLLM_SpendLogs" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
  };

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE "${litellmDbName}"`);
    litellmDb = new pg.Client({ connectionString: litellmUrl });
    await litellmDb.connect();
    await litellmDb.query(SPEND_LOGS_SQL);
    t = await startTestApp('litellm_pull', env);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'gpt-4o', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '100', reference: 'seed-u42' }).expect(201);
    await t.admin(t.http.put(`/v1/admin/integrations/litellm/deployments/${DEPLOYMENT_MAPPED}`)).send({ contributor_id: 'c_std' }).expect(201);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await litellmDb?.end();
    await dropDatabase(litellmDbName);
  });

  it('bills pushed calls once, and the calls only the spend log has', async () => {
    // a, b and c reached the push endpoint; d's batch was dropped by LiteLLM (its POST failed).
    const pushed = await t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'application/json')
      .send(JSON.stringify(['pull-a', 'pull-b', 'pull-c'].map((id, i) => litellmPayload(id, { endTime: `2026-11-30 10:00:0${i}.123456` }))))
      .expect(200);
    expect(pushed.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced', 'priced']);
    await insertRow(spendRow('pull-a', '2026-11-30 10:00:00.123'));
    await insertRow(spendRow('pull-b', '2026-11-30 10:00:01.123'));
    await insertRow(spendRow('pull-c', '2026-11-30 10:00:02.123'));
    await insertRow(spendRow('pull-d', '2026-11-30 10:00:03.000'));
    // A cache hit (LiteLLM suffixes its request_id) and a failure are in the spend log too: not billed.
    await insertRow(spendRow('pull-e_cache_hit1764496803.5', '2026-11-30 10:00:03.500', { cache_hit: 'True', spend: 0 }));
    await insertRow(spendRow('pull-f', '2026-11-30 10:00:04.000', { status: 'failure', spend: 0 }));

    worker = await startTestWorker(t.databaseUrl, env);
    const status = await waitFor(async () => {
      const res = await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200);
      return res.body.pull.checkpoint === '2026-11-30T10:00:04.000Z' ? res.body : null;
    }, 30_000);
    expect(status.pull).toMatchObject({ enabled: true, events: 1 });
    expect(status.pull.lag_seconds).toBeGreaterThan(0);

    // (10 x 2.5 + 20 x 10) / 1e6, like its pushed siblings
    const d = await get('litellm:pull-d').expect(200);
    expect(d.body).toMatchObject({ status: 'priced', official_usd: '0.000225', user_id: 'u_42', contributor_id: 'c_std', occurred_at: '2026-11-30T10:00:03.000Z', litellm_response_cost_usd: '0.00022500000000000002' });
    await get('litellm:pull-f').expect(404);

    const ledger = new pg.Client({ connectionString: t.databaseUrl });
    await ledger.connect();
    try {
      const rows = await ledger.query<{ event_id: string; n: number }>(`SELECT event_id, count(*)::int AS n FROM usage_events WHERE event_id LIKE 'litellm:pull-%' GROUP BY event_id ORDER BY event_id`);
      expect(rows.rows).toEqual(['a', 'b', 'c', 'd'].map((x) => ({ event_id: `litellm:pull-${x}`, n: 1 })));
      const postings = await ledger.query<{ n: number }>(`SELECT count(*)::int AS n FROM journal_entries WHERE ref LIKE 'litellm:pull-%'`);
      expect(postings.rows[0]!.n).toBe(4);
      // Nothing of the spend log's message or response columns was copied.
      const texts = await ledger.query<{ n: number }>(`SELECT count(*)::int AS n FROM litellm_requests WHERE event::text LIKE $1 OR reason LIKE $1`, [`%${MESSAGE_MARKER}%`]);
      expect(texts.rows[0]!.n).toBe(0);
    } finally {
      await ledger.end();
    }
    const balance = await t.admin(t.http.get('/v1/contributors/c_std/balance')).expect(200);
    // 4 calls x 0.000225 x 1.1
    expect(balance.body.accrued_usd).toBe('0.00099');
    await expectLedgerClean(t);

    // The push LiteLLM had dropped, retried later: a duplicate.
    const retried = await t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'application/json').send(JSON.stringify([litellmPayload('pull-d', { endTime: '2026-11-30 10:00:03.000' })])).expect(200);
    expect(retried.body.results[0].status).toBe('duplicate');
  });

  it('picks up a row LiteLLM wrote late, inside the overlap behind the checkpoint', async () => {
    await insertRow(spendRow('pull-late', '2026-11-30 09:59:00.000'));
    const late = await waitFor(async () => {
      const res = await get('litellm:pull-late');
      return res.status === 200 ? res.body : null;
    }, 30_000);
    expect(late).toMatchObject({ status: 'priced', official_usd: '0.000225' });
    const status = await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200);
    expect(status.body.pull).toMatchObject({ checkpoint: '2026-11-30T10:00:04.000Z', events: 2 });
    await expectLedgerClean(t);
  });

  // Rows dated around the real present from here on (the late window and the future skew are relative to it).
  const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().replace('T', ' ').replace('Z', '');
  const status = async () => (await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200)).body.pull;
  const billed = (eventId: string) =>
    waitFor(async () => {
      const res = await get(eventId);
      return res.status === 200 ? res.body : null;
    }, 45_000);

  it('bills a row committed two hours after its endTime, past the overlap (issue 34 item 4)', async () => {
    await insertRow(spendRow('pull-now', at(-60_000)));
    await billed('litellm:pull-now');
    // Written late: its endTime is far behind the checkpoint and its overlap.
    const late = at(-2 * 3600_000);
    await insertRow({ ...spendRow('pull-2h-late', late), startTime: late });
    expect(await billed('litellm:pull-2h-late')).toMatchObject({ status: 'priced', official_usd: '0.000225' });
    await expectLedgerClean(t);
  });

  it('never moves the checkpoint past the present: a row of 2099 is rejected and counted once, a row due in seconds is billed when due, and the pull goes on (item 5)', async () => {
    const before = await status();
    await insertRow(spendRow('pull-2099', '2099-01-01 00:00:00.000'));
    await insertRow(spendRow('pull-soon', at(4_000)));
    await insertRow(spendRow('pull-after-2099', at(-30_000)));
    expect(await billed('litellm:pull-after-2099')).toMatchObject({ status: 'priced' });
    expect(await billed('litellm:pull-soon')).toMatchObject({ status: 'priced' });
    const after = await waitFor(async () => {
      const s = await status();
      return (s.rejected_by_reason.future ?? 0) > 0 ? s : null;
    }, 30_000);
    expect(after.rejected_by_reason.future - (before.rejected_by_reason.future ?? 0)).toBe(1);
    expect(Date.parse(after.checkpoint)).toBeLessThanOrEqual(Date.now());
    await get('litellm:pull-2099').expect(404);
    // Still once after more runs.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await status()).rejected_by_reason.future).toBe(after.rejected_by_reason.future);
  });

  it('rejects rows it cannot take (2 MiB usage objects, a control character) with their reason, once, and bills the rows around them (item 10)', async () => {
    const before = await status();
    const huge = { completion_tokens: 20, prompt_tokens: 10, total_tokens: 30, padding: 'x'.repeat(2 * 1024 * 1024) };
    for (let i = 0; i < 6; i += 1) {
      await insertRow(spendRow(`pull-huge-${i}`, at(-20_000 + i), { metadata: JSON.stringify({ usage_object: huge, model_map_information: { model_map_key: 'gpt-4o' } }) }));
    }
    await insertRow(spendRow('pull-ctrl', at(-19_000), { user: 'u_42\u0001' }));
    await insertRow(spendRow('pull-next', at(-18_000)));
    expect(await billed('litellm:pull-next')).toMatchObject({ status: 'priced' });
    const after = await waitFor(async () => {
      const s = await status();
      return (s.rejected_by_reason.row_too_large ?? 0) - (before.rejected_by_reason.row_too_large ?? 0) === 6 && (s.rejected_by_reason.text ?? 0) > 0 ? s : null;
    }, 30_000);
    expect(after.rejected_by_reason.text - (before.rejected_by_reason.text ?? 0)).toBe(1);
    await get('litellm:pull-huge-0').expect(404);
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/litellm_rejected_total\{path="pull",reason="row_too_large"\} 6/);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await status()).rejected).toBe(after.rejected);
    await expectLedgerClean(t);
  });

  it('does not count a skipped row as known: the billable payload with its id is billed by the push (item 2)', async () => {
    await insertRow(spendRow('pull-hit-first', at(-10_000), { cache_hit: 'True', spend: 0 }));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const pushed = await t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'application/json').send(JSON.stringify([litellmPayload('pull-hit-first')])).expect(200);
    expect(pushed.body.results[0].status).toBe('priced');
  });
});

