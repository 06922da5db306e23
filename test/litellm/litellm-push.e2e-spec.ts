// POST /v1/integrations/litellm with what LiteLLM's generic_api callback sends (payloads built from
// LiteLLM's own fixture, test/fixtures/litellm/), through the real HTTP app, Postgres and Redis.
// Every amount is derived by hand from the usage and the prices created here.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { expectLedgerClean } from '../support/billing-fixtures.js';
import { anthropicCachePayload, DEPLOYMENT_MAPPED, litellmPayload, MESSAGE_MARKER, openaiCachedReasoningPayload, withUsage } from '../support/litellm-payloads.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Small enough to test the 413 with a modest body; the default is 64 MiB. */
const BODY_LIMIT_BYTES = 12 * 1024 * 1024;
/** Small enough to test the payload cap quickly; the default is 20,000. */
const MAX_PAYLOADS = 600;

describe('POST /v1/integrations/litellm (LiteLLM generic_api push)', () => {
  let t: TestApp;
  const push = (body: unknown) => t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
  const get = (eventId: string) => t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`));

  beforeAll(async () => {
    t = await startTestApp('litellm_push', { LITELLM_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES), LITELLM_MAX_PAYLOADS: String(MAX_PAYLOADS) });
    const prices = [
      { model: 'gpt-4o', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25' },
      { model: 'o4-mini', input_usd_per_mtok: '1.1', output_usd_per_mtok: '4.4', cached_input_usd_per_mtok: '0.275' },
      {
        model: 'claude-sonnet-4-5',
        input_usd_per_mtok: '3',
        output_usd_per_mtok: '15',
        cached_input_usd_per_mtok: '0.3',
        cache_write_5m_usd_per_mtok: '3.75',
        cache_write_1h_usd_per_mtok: '6',
        web_search_usd_per_call: '0.01',
      },
    ];
    for (const price of prices) await t.admin(t.http.post('/v1/admin/prices')).send({ ...price, effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '1000', reference: 'seed-u42' }).expect(201);
    const mapped = await t.admin(t.http.put(`/v1/admin/integrations/litellm/deployments/${DEPLOYMENT_MAPPED}`)).send({ contributor_id: 'c_std' }).expect(201);
    expect(mapped.body).toMatchObject({ model_id: DEPLOYMENT_MAPPED, contributor_id: 'c_std', billed_events: 0 });
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("bills LiteLLM's own stream payload fixture (json_array) and keeps its float cost beside the event", async () => {
    const res = await push([litellmPayload('plain-1')]).expect(200);
    expect(res.body).toEqual({ results: [{ id: 'plain-1', event_id: 'litellm:plain-1', status: 'priced' }] });
    // (10 x 2.5 + 20 x 10) / 1e6; charge x 1.3, payout x 1.1 (standard)
    const stored = await get('litellm:plain-1').expect(200);
    expect(stored.body).toMatchObject({
      status: 'priced',
      model: 'gpt-4o',
      user_id: 'u_42',
      contributor_id: 'c_std',
      official_usd: '0.000225',
      charge_usd: '0.0002925',
      payout_usd: '0.0002475',
      source: 'litellm',
      occurred_at: '2026-11-30T10:00:00.123Z',
      litellm_response_cost_usd: '0.00022500000000000002',
    });
  });

  it('bills Anthropic cache writes 5m/1h, cache reads and web searches as LiteLLM reports them', async () => {
    const res = await push([anthropicCachePayload('anth-1')]).expect(200);
    expect(res.body.results).toEqual([{ id: 'anth-1', event_id: 'litellm:anth-1', status: 'priced' }]);
    // 100 fresh x 3 + 2000 read x 0.3 + 2000 5m x 3.75 + 1000 1h x 6 + 400 x 15 = 20,400 / 1e6 = 0.0204, + 2 searches x 0.01
    const stored = await get('litellm:anth-1').expect(200);
    expect(stored.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      official_usd: '0.0404',
      usage: { prompt_tokens: 5100, completion_tokens: 400, cached_tokens: 2000, cache_write_5m_tokens: 2000, cache_write_1h_tokens: 1000, web_search_calls: 2 },
    });
  });

  it('bills OpenAI cached input and reasoning; service_tier "default" is the standard variant', async () => {
    await push([openaiCachedReasoningPayload('oai-1')]).expect(200);
    // 200 x 1.1 + 1000 x 0.275 + 800 x 4.4 (reasoning inside completion, at the output price) = 4,015 / 1e6
    const stored = await get('litellm:oai-1').expect(200);
    expect(stored.body).toMatchObject({ model: 'o4-mini', price_variant: 'standard', official_usd: '0.004015', usage: { prompt_tokens: 1200, completion_tokens: 800, cached_tokens: 1000, reasoning_tokens: 600 } });
  });

  it('skips failures, cache hits and unsupported call types with their reason, and remembers them', async () => {
    const batch = [
      litellmPayload('fail-1', { status: 'failure', error_str: 'rate limited' }),
      litellmPayload('hit-1', { cache_hit: true }),
      litellmPayload('img-1', { call_type: 'aimage_generation' }),
    ];
    const expected = [
      { id: 'fail-1', event_id: 'litellm:fail-1', status: 'skipped', reason: 'failure' },
      { id: 'hit-1', event_id: 'litellm:hit-1', status: 'skipped', reason: 'cache_hit' },
      { id: 'img-1', event_id: 'litellm:img-1', status: 'skipped', reason: 'unsupported_call_type' },
    ];
    expect((await push(batch).expect(200)).body.results).toEqual(expected);
    // Replayed: the same reason.
    expect((await push(batch).expect(200)).body.results).toEqual(expected);
    await get('litellm:fail-1').expect(404);
  });

  it('lets no skipped payload claim its id: the original call after its cache hit, a success after a failure, are billed (issue 34 item 2)', async () => {
    // Several proxies share a cache: the hit (same id as the original call) arrives first.
    expect((await push([litellmPayload('shared-1', { cache_hit: true })]).expect(200)).body.results[0]).toMatchObject({ status: 'skipped', reason: 'cache_hit' });
    expect((await push([litellmPayload('shared-1')]).expect(200)).body.results[0]).toMatchObject({ status: 'priced' });
    expect((await push([litellmPayload('retry-1', { status: 'failure' })]).expect(200)).body.results[0]).toMatchObject({ status: 'skipped', reason: 'failure' });
    // An unmapped deployment parks the call over the remembered skip.
    expect((await push([litellmPayload('retry-1', { model_id: 'dep-later' })]).expect(200)).body.results[0]).toMatchObject({ status: 'unattributed' });
    expect((await get('litellm:shared-1').expect(200)).body).toMatchObject({ status: 'priced', official_usd: '0.000225' });
    expect((await get('litellm:retry-1').expect(200)).body).toMatchObject({ status: 'unattributed' });
    // Replays: the billed call is a duplicate, the skipped payload still answers its reason.
    const replay = await push([litellmPayload('shared-1'), litellmPayload('shared-1', { cache_hit: true }), litellmPayload('retry-1', { model_id: 'dep-later' })]).expect(200);
    expect(replay.body.results.map((r: { status: string; reason?: string }) => [r.status, r.reason])).toEqual([['duplicate', undefined], ['skipped', 'cache_hit'], ['duplicate', undefined]]);
  });

  it('rejects only the entry whose id or text holds a NUL or another control character, never the body (issue 34 item 1)', async () => {
    const status = async () => (await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200)).body.push;
    const before = await status();
    const batch = [
      litellmPayload('nul-ok-1'),
      litellmPayload('nul\u0000id'),
      litellmPayload('nul-user', { metadata: { user_api_key_user_id: 'u_42\u0000' } }),
      litellmPayload('nul-model', { model_id: 'dep\u0001x' }),
      litellmPayload('lone\ud800'),
      litellmPayload('nul-ok-2'),
    ];
    const res = await push(batch).expect(200);
    expect(res.body.results.map((r: { status: string; reason?: string }) => [r.status, r.reason])).toEqual([
      ['priced', undefined],
      ['rejected', 'text'],
      ['rejected', 'text'],
      ['rejected', 'text'],
      ['rejected', 'text'],
      ['priced', undefined],
    ]);
    expect(res.body.results[1]).toMatchObject({ id: 'nul\u0000id', event_id: null, error: { code: 'validation_failed', message: expect.stringContaining('control character') } });
    // A skipped payload with a NUL in its id is rejected too (its id would be stored).
    expect((await push([litellmPayload('hit\u0000', { cache_hit: true })]).expect(200)).body.results[0]).toMatchObject({ status: 'rejected', reason: 'text' });
    const after = await status();
    expect(after.rejected - before.rejected).toBe(5);
    expect(after.rejected_by_reason.text - (before.rejected_by_reason.text ?? 0)).toBe(5);
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/litellm_rejected_total\{path="push",reason="text"\} \d+/);
  });

  it('hashes an id too long for an event id into "litellm:sha256:..." (issue 34 item 3)', async () => {
    const long = `resp_${'a1b2c3d4'.repeat(40)}`; // 325 characters
    const hashed = `litellm:sha256:${createHash('sha256').update(long).digest('hex')}`;
    const res = await push([litellmPayload(long)]).expect(200);
    expect(res.body.results[0]).toEqual({ id: long, event_id: hashed, status: 'priced' });
    expect((await get(hashed).expect(200)).body.official_usd).toBe('0.000225');
    expect((await push([litellmPayload(long)]).expect(200)).body.results[0].status).toBe('duplicate');
  });

  it('answers 413 naming LITELLM_MAX_PAYLOADS past the payload cap, in every format, and writes nothing', async () => {
    const over = Array.from({ length: MAX_PAYLOADS + 1 }, (_, i) => ({ ...litellmPayload(`cap-${i}`), messages: [] }));
    for (const body of [JSON.stringify(over), over.map((p) => JSON.stringify(p)).join('\n')]) {
      const res = await push(body).expect(413);
      expect(res.body.error).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('LITELLM_MAX_PAYLOADS') });
    }
    await get('litellm:cap-0').expect(404);
    const exact = await push(over.slice(0, MAX_PAYLOADS)).expect(200);
    expect(exact.body.results).toHaveLength(MAX_PAYLOADS);
  });

  it('parks an unmapped deployment as unattributed, shows it, and bills it exactly when the mapping arrives', async () => {
    const payload = { ...litellmPayload('park-1'), model_id: 'dep-new' };
    expect((await push([payload]).expect(200)).body.results).toEqual([{ id: 'park-1', event_id: 'litellm:park-1', status: 'unattributed' }]);
    const parked = await get('litellm:park-1').expect(200);
    expect(parked.body).toMatchObject({ status: 'unattributed', contributor_id: null, litellm_model_id: 'dep-new', model: 'gpt-4o', usage: { prompt_tokens: 10, completion_tokens: 20 } });
    expect((await push([payload]).expect(200)).body.results[0].status).toBe('duplicate');
    const listed = await t.admin(t.http.get('/v1/admin/integrations/litellm/deployments')).expect(200);
    expect(listed.body.data).toContainEqual(expect.objectContaining({ model_id: 'dep-new', contributor_id: null, unattributed_events: 1 }));

    const mapped = await t.admin(t.http.put('/v1/admin/integrations/litellm/deployments/dep-new')).send({ contributor_id: 'c_std' }).expect(201);
    expect(mapped.body).toMatchObject({ model_id: 'dep-new', contributor_id: 'c_std', billed_events: 1 });
    expect((await get('litellm:park-1').expect(200)).body).toMatchObject({ status: 'priced', contributor_id: 'c_std', official_usd: '0.000225' });
    // Mapping again bills nothing twice; a replay is a duplicate.
    expect((await t.admin(t.http.put('/v1/admin/integrations/litellm/deployments/dep-new')).send({ contributor_id: 'c_std' }).expect(200)).body.billed_events).toBe(0);
    expect((await push([payload]).expect(200)).body.results[0].status).toBe('duplicate');
    const audit = await t.admin(t.http.get('/v1/admin/audit-log')).expect(200);
    expect(JSON.stringify(audit.body)).toContain('litellm.deployment.map');
  });

  it('refuses a mapping to an unknown contributor (422) and a bad body (400), changing nothing', async () => {
    await t.admin(t.http.put('/v1/admin/integrations/litellm/deployments/dep-x')).send({ contributor_id: 'c_nobody' }).expect(422);
    await t.admin(t.http.put('/v1/admin/integrations/litellm/deployments/dep-x')).send({ contributor: 'c_std' }).expect(400);
    const listed = await t.admin(t.http.get('/v1/admin/integrations/litellm/deployments')).expect(200);
    expect(listed.body.data.map((d: { model_id: string }) => d.model_id)).not.toContain('dep-x');
  });

  it('takes 500 payloads with long messages in one request and bills each exactly', async () => {
    const batch = Array.from({ length: 500 }, (_, i) =>
      withUsage(litellmPayload(`bulk-${i}`, {}, { messageBytes: 16_000 }), 'gpt-4o', { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 }),
    );
    const res = await push(batch).expect(200);
    expect(res.body.results).toHaveLength(500);
    expect(res.body.results.every((r: { status: string; id: string }, i: number) => r.status === 'priced' && r.id === `bulk-${i}`)).toBe(true);
    // 1000 x 2.5 + 100 x 10 = 3,500 / 1e6 each
    for (const i of [0, 250, 499]) expect((await get(`litellm:bulk-${i}`).expect(200)).body.official_usd).toBe('0.0035');
    const earnings = await t.admin(t.http.get('/v1/contributors/c_std/balance')).expect(200);
    expect(earnings.body.accrued_usd).toBeDefined();
  });

  it('reads NDJSON (a bad line is rejected alone) and a single object', async () => {
    const lines = [JSON.stringify(litellmPayload('nd-1')), '{not json', JSON.stringify(litellmPayload('nd-2'))].join('\n');
    const res = await push(lines).expect(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'rejected', 'priced']);
    expect(res.body.results[1]).toMatchObject({ id: null, error: { code: 'validation_failed' } });
    const single = await push(litellmPayload('single-1')).expect(200);
    expect(single.body.results).toEqual([{ id: 'single-1', event_id: 'litellm:single-1', status: 'priced' }]);
  });

  it('reads endTime as epoch seconds and as a naive UTC datetime', async () => {
    await push([litellmPayload('t-epoch', { endTime: 1764496800.25 }), litellmPayload('t-naive', { endTime: '2026-11-30 09:59:59.9996' })]).expect(200);
    expect((await get('litellm:t-epoch').expect(200)).body.occurred_at).toBe('2025-11-30T10:00:00.250Z');
    expect((await get('litellm:t-naive').expect(200)).body.occurred_at).toBe('2026-11-30T10:00:00.000Z');
  });

  it('answers a replayed batch with duplicates and bills nothing twice', async () => {
    const batch = [litellmPayload('rep-1'), litellmPayload('rep-2'), litellmPayload('rep-3', { status: 'failure' })];
    expect((await push(batch).expect(200)).body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced', 'skipped']);
    const before = (await t.admin(t.http.get('/v1/contributors/c_std/balance')).expect(200)).body.accrued_usd;
    expect((await push(batch).expect(200)).body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate', 'skipped']);
    expect((await t.admin(t.http.get('/v1/contributors/c_std/balance')).expect(200)).body.accrued_usd).toBe(before);
  });

  it('rejects a bad entry among good ones, and only it', async () => {
    const bad = [
      litellmPayload('good-1'),
      { ...litellmPayload('x'), id: undefined },
      withUsage(litellmPayload('bad-usage'), 'gpt-4o', { prompt_tokens: 10, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 50 } }),
      litellmPayload('bad-time', { endTime: 'yesterday' }),
      litellmPayload('no-user', { metadata: {} }),
      'not an object',
      litellmPayload('good-2'),
    ];
    const res = await push(bad).expect(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'priced']);
    expect(res.body.results[2]).toMatchObject({ id: 'bad-usage', error: { code: 'validation_failed' } });
    await get('litellm:bad-usage').expect(404);
  });

  it('answers 400 to a body that is neither JSON nor NDJSON, 415 to another media type, 413 past LITELLM_BODY_LIMIT_BYTES', async () => {
    await push('hello').expect(400);
    await t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'text/plain').send('[]').expect(415);
    const huge = [litellmPayload('huge', {}, { messageBytes: BODY_LIMIT_BYTES + 1024 })];
    await push(huge).expect(413);
    await get('litellm:huge').expect(404);
  });

  it('answers 400 to a body broken in the parts it never reads, or whose read fields are not JSON text, and changes nothing', async () => {
    const status = async () => (await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200)).body.push.payloads as number;
    const before = await status();
    const good = JSON.stringify(litellmPayload('hostile-ok'));
    const hostile = [
      // A bracket missing inside the messages, which the mapping never reads.
      `[${good.replace('"messages":[', '"messages":')}]`,
      // A trailing comma inside the response choices.
      `[${good.replace('"choices":[', '"choices":[1,,')}]`,
      // Nesting no one reads, left open.
      `[${good.replace('"messages":[', `"messages":${'['.repeat(100_000)}`)}]`,
    ];
    for (const body of hostile) {
      const res = await push(body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    await get('litellm:hostile-ok').expect(404);
    expect(await status()).toBe(before);
    // An id (read) that is not JSON text (a bad escape): that payload alone is rejected.
    const res = await push(`[${good.replace('"id":"hostile-ok"', '"id":"hostile-\\x"')},${JSON.stringify(litellmPayload('hostile-ok'))}]`).expect(200);
    expect(res.body.results.map((r: { status: string; reason?: string }) => [r.status, r.reason])).toEqual([['rejected', 'unreadable'], ['priced', undefined]]);
  });

  it('needs a gateway or admin key', async () => {
    await t.http.post('/v1/integrations/litellm').set('Content-Type', 'application/json').send('[]').expect(401);
  });

  it('reports the push path in the status', async () => {
    const status = await t.admin(t.http.get('/v1/admin/integrations/litellm/status')).expect(200);
    expect(status.body.push.payloads).toBeGreaterThan(500);
    expect(typeof status.body.push.last_at).toBe('string');
    expect(status.body.pull).toEqual({ enabled: false, checkpoint: null, lag_seconds: null, events: 0, rejected: 0, rejected_by_reason: {} });
  });

  it('documents the LiteLLM routes in the OpenAPI document', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    for (const path of ['/v1/integrations/litellm', '/v1/admin/integrations/litellm/deployments', '/v1/admin/integrations/litellm/deployments/{model_id}', '/v1/admin/integrations/litellm/status']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
  });

  // Last: every payload above carried the marker in its messages and response.
  it('stores no prompt or response text anywhere in the database', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const columns = await client.query<{ table_schema: string; table_name: string; column_name: string }>(
        `SELECT c.table_schema, c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
         WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`,
      );
      expect(columns.rows.length).toBeGreaterThan(10);
      const found: string[] = [];
      for (const col of columns.rows) {
        const q = `SELECT count(*)::int AS n FROM "${col.table_schema}"."${col.table_name}" WHERE "${col.column_name}"::text LIKE $1`;
        const n = (await client.query<{ n: number }>(q, [`%${MESSAGE_MARKER}%`])).rows[0]!.n;
        if (n > 0) found.push(`${col.table_name}.${col.column_name}`);
      }
      expect(found).toEqual([]);
      // The scan does find text that is stored: the ids of the payloads.
      const bulk = await client.query<{ n: number; official: string; charge: string }>(
        `SELECT count(*)::int AS n, sum(official_atto)::text AS official, sum(charge_atto)::text AS charge FROM usage_events WHERE event_id LIKE 'litellm:bulk-%'`,
      );
      // 500 x 0.0035 USD = 1.75 USD official, x 1.3 = 2.275 USD charged, in atto-USD.
      expect(bulk.rows[0]).toEqual({ n: 500, official: '1750000000000000000', charge: '2275000000000000000' });
    } finally {
      await client.end();
    }
  });
});
