import { readFileSync } from 'node:fs';
import { expectLedgerClean, GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sse/${name}.sse`, import.meta.url));
const STREAM_LIMIT_BYTES = 64 * 1024;

describe('POST /v1/usage-events/stream', () => {
  let t: TestApp;
  const post = (query: string, body: Buffer | string, type = 'text/event-stream') =>
    t.admin(t.http.post(`/v1/usage-events/stream?${query}`)).set('Content-Type', type).send(body);

  beforeAll(async () => {
    t = await startTestApp('streams', { STREAM_BODY_LIMIT_BYTES: String(STREAM_LIMIT_BYTES) });
    await seedBilling(t);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'o4-mini-2025-04-16', input_usd_per_mtok: '1.1', output_usd_per_mtok: '4.4', cached_input_usd_per_mtok: '0.275', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('bills exactly the provider usage carried by the stream (model from the chunks)', async () => {
    const res = await post('event_id=s-02&user_id=u_42&contributor_id=c_std', fixture('02-openai-usage-final-empty-choices')).expect(201);
    expect(res.body).toMatchObject({
      status: 'priced',
      model: 'o4-mini-2025-04-16',
      usage: { prompt_tokens: 1184, completion_tokens: 215, cached_tokens: 1024, reasoning_tokens: 192 },
      stream: { finish_reason: 'stop', usage_source: 'provider', tool_calls: [], truncated: false, error: null },
    });
    // (160 * 1.1 + 1024 * 0.275 + 215 * 4.4) / 1e6 = 0.0014036
    expect(res.body.official_usd).toBe('0.0014036');
    expect(res.body.charge_usd).toBe('0.00182468');
  });

  it('estimates completion tokens with a tokenizer when the stream has no usage', async () => {
    const body = fixture('04-openai-parallel-2-sequential');
    const missing = await post(`event_id=s-04&user_id=u_42&contributor_id=c_std&model=${GPT4O}`, body).expect(400);
    expect(missing.body.error.details[0].field).toBe('prompt_tokens');
    const res = await post(`event_id=s-04&user_id=u_42&contributor_id=c_std&model=${GPT4O}&prompt_tokens=100`, body).expect(201);
    expect(res.body.stream.usage_source).toBe('estimated');
    expect(res.body.usage.prompt_tokens).toBe(100);
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    expect(res.body.stream.tool_calls).toHaveLength(2);
    expect(res.body.stream.tool_calls.every((c: { arguments_valid: boolean }) => c.arguments_valid)).toBe(true);
    const stored = await t.admin(t.http.get('/v1/usage-events/s-04')).expect(200);
    expect(stored.body.stream.body_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored.body.stream)).not.toContain('arguments_raw');
  });

  it('replays the same stream and refuses another body under the same event_id', async () => {
    const query = 'event_id=s-02&user_id=u_42&contributor_id=c_std';
    const replay = await post(query, fixture('02-openai-usage-final-empty-choices')).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await post(`${query}&prompt_tokens=5&model=${GPT4O}`, fixture('01-openai-content-simple')).expect(409);
  });

  it('bills a stream that ended in a provider error and records the error and truncation', async () => {
    const errored = await post(`event_id=s-26&user_id=u_42&contributor_id=c_std&prompt_tokens=20`, fixture('26-openrouter-midstream-error-chunk')).expect(201);
    expect(errored.body.stream).toMatchObject({ finish_reason: 'error', error: { code: 'server_error' } });
    const truncated = await post(`event_id=s-12&user_id=u_42&contributor_id=c_std&prompt_tokens=20&model=${GPT4O}`, fixture('12-openai-truncated-mid-arguments-no-done')).expect(201);
    expect(truncated.body.stream).toMatchObject({ truncated: true, finish_reason: null });
    expect(truncated.body.stream.tool_calls[0].arguments_valid).toBe(false);
  });

  it('refuses bad requests with clear 4xx and bills nothing', async () => {
    const before = await expectLedgerClean(t);
    const wrongType = await post('event_id=x1&user_id=u_42&contributor_id=c_std', fixture('02-openai-usage-final-empty-choices'), 'application/json').expect(415);
    expect(wrongType.body.error.code).toBe('unsupported_media_type');
    const badQuery = await post('user_id=u_42&contributor_id=c_std&bogus=1', fixture('02-openai-usage-final-empty-choices')).expect(400);
    expect(badQuery.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['event_id', 'bogus']));
    await post('event_id=x2&user_id=u_42&contributor_id=c_std&prompt_tokens=1', 'hello, this is not a stream').expect(400);
    await post('event_id=x3&user_id=u_42&contributor_id=c_std&prompt_tokens=1', 'data: {"id":"x","choices":[]}\n\ndata: [DONE]\n\n').expect(400);
    await post('event_id=x4&user_id=u_42&contributor_id=c_std&prompt_tokens=-1', fixture('01-openai-content-simple')).expect(400);
    const huge = `data: {"choices":[{"index":0,"delta":{"content":"${'a'.repeat(STREAM_LIMIT_BYTES)}"}}]}\n\n`;
    const tooLarge = await post('event_id=x5&user_id=u_42&contributor_id=c_std&prompt_tokens=1', huge).expect(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    await post('event_id=x6&user_id=u_42&contributor_id=c_nobody&prompt_tokens=1', fixture('01-openai-content-simple')).expect(422);
    expect((await expectLedgerClean(t)).journal_entries).toBe(before.journal_entries);
  });

  it('reports a stream with bad JSON inside with the reassembler error, not a 500', async () => {
    const body = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: {not json}\n\n';
    const res = await post(`event_id=s-bad&user_id=u_42&contributor_id=c_std&prompt_tokens=3&model=${GPT4O}`, body).expect(201);
    expect(res.body.stream.error).toMatchObject({ code: 'invalid_chunk_json' });
    const onlyBad = await post(`event_id=s-bad2&user_id=u_42&contributor_id=c_std&prompt_tokens=3&model=${GPT4O}`, 'data: {not json}\n\n').expect(400);
    expect(onlyBad.body.error.details[0].message).toMatch(/stream error/);
  });
});
