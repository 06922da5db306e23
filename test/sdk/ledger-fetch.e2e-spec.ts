// The SDK's stream helpers with the real clients (openai@6, ai@6 + @ai-sdk/openai@3) against an
// upstream replaying the SSE fixtures and the real API (Postgres, Redis): each call is billed at
// what the same fixture bills through /v1/usage-events/stream directly, the caller receives the
// upstream's bytes unchanged, and the x-ledger-* headers never reach the upstream.
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { countPromptTokens, LedgerClient, LedgerInsufficientFundsError, ledgerFetch, ledgerMiddleware } from '../../sdk/src/index.js';
import { GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { NON_STREAM_USAGE, sseFixture, startSseUpstream, type SseUpstream } from './support/sse-upstream.js';

const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'What is the weather in San Francisco? Answer in celsius.' },
];
const ATTRIBUTION = { user_id: 'u_42', contributor_id: 'c_std', model: GPT4O };

describe('SDK stream helpers with the real OpenAI SDK and AI SDK', () => {
  let t: TestApp;
  let upstream: SseUpstream;
  let ledger: LedgerClient;
  let gatewayKey: string;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp('sdk_fetch');
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await seedBilling(t);
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'sdk' }).expect(201)).body.key;
    upstream = await startSseUpstream();
    ledger = new LedgerClient({ baseUrl, apiKey: gatewayKey });
  });
  afterAll(async () => {
    ledger?.close();
    await upstream?.close();
    await t?.close();
  });

  const event = async (eventId: string) => (await t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`)).expect(200)).body;

  /** What the fixture bills when the gateway posts it to /v1/usage-events/stream itself. */
  async function billedDirectly(fixture: string, sse: Uint8Array, promptTokens: number) {
    const query = new URLSearchParams({ event_id: `direct-${fixture}-${Math.random()}`, ...ATTRIBUTION, prompt_tokens: String(promptTokens) });
    const res = await t.http.post(`/v1/usage-events/stream?${query}`).set('Authorization', `Bearer ${gatewayKey}`).set('Content-Type', 'text/event-stream').send(Buffer.from(sse));
    expect([201, 202]).toContain(res.status);
    return res.body;
  }

  function openaiClient(eventId: string, extra: Record<string, string> = {}) {
    const fetch = ledgerFetch(globalThis.fetch, { ledger, attribution: () => ({ event_id: eventId, ...ATTRIBUTION, ...extra }) });
    return new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', fetch, maxRetries: 0 });
  }

  it.each([
    ['03-openai-tool-single-fragmented'],
    ['02-openai-usage-final-empty-choices'],
    ['15-openrouter-comment-keepalives-and-trailing-usage-chunk'],
    ['12-openai-truncated-mid-arguments-no-done'],
  ])('OpenAI SDK stream %s: byte-identical to the caller, billed as the fixture bills directly', async (fixture) => {
    const eventId = `oa-${fixture}`;
    const response = await openaiClient(eventId).chat.completions.create({ model: `fixture:${fixture}`, messages: MESSAGES, stream: true }).asResponse();
    const received = Buffer.from(await response.arrayBuffer());
    const call = upstream.calls.at(-1)!;
    expect(received.equals(call.sent)).toBe(true);
    expect(received.equals(sseFixture(fixture))).toBe(true);
    await ledger.flush();
    const billed = await event(eventId);
    const direct = await billedDirectly(fixture, sseFixture(fixture), countPromptTokens({ model: GPT4O, messages: MESSAGES }));
    expect(billed.status).toBe('priced');
    expect({ charge: billed.charge_usd, payout: billed.payout_usd, prompt: billed.usage.prompt_tokens, completion: billed.usage.completion_tokens }).toEqual({
      charge: direct.charge_usd,
      payout: direct.payout_usd,
      prompt: direct.usage.prompt_tokens,
      completion: direct.usage.completion_tokens,
    });
    expect(BigInt(billed.charge_usd.replace('.', '').padEnd(20, '0'))).toBeGreaterThan(0n);
  });

  it('the OpenAI SDK still parses the tool call it streams through ledgerFetch', async () => {
    const stream = await openaiClient('oa-parsed').chat.completions.create({ model: 'fixture:03-openai-tool-single-fragmented', messages: MESSAGES, stream: true });
    let args = '';
    for await (const chunk of stream) args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    expect(JSON.parse(args)).toEqual({ location: 'San Francisco, CA', unit: 'celsius' });
    await ledger.flush();
    expect((await event('oa-parsed')).stream.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', arguments_valid: true })]);
  });

  it('x-ledger-* headers attribute the call and never reach the upstream', async () => {
    const fetch = ledgerFetch(globalThis.fetch, { ledger });
    const client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', fetch, maxRetries: 0 });
    const stream = await client.chat.completions.create(
      { model: 'fixture:02-openai-usage-final-empty-choices', messages: MESSAGES, stream: true },
      { headers: { 'x-ledger-event-id': 'oa-headers', 'x-ledger-user-id': 'u_42', 'x-ledger-contributor-id': 'c_prem', 'x-ledger-model': GPT4O } },
    );
    for await (const _chunk of stream) void _chunk;
    await ledger.flush();
    expect(Object.keys(upstream.calls.at(-1)!.headers).filter((name) => name.startsWith('x-ledger-'))).toEqual([]);
    expect(upstream.calls.at(-1)!.headers.authorization).toBe('Bearer sk-upstream');
    expect(await event('oa-headers')).toMatchObject({ status: 'priced', contributor_id: 'c_prem', contributor_tier: 'premium' });
  });

  it('a stream the caller aborts is billed on what it received, and the upstream is cut off', async () => {
    const controller = new AbortController();
    const stream = await openaiClient('oa-aborted').chat.completions.create({ model: 'fixture:01-openai-content-simple:slow', messages: MESSAGES, stream: true }, { signal: controller.signal });
    let chunks = 0;
    // The OpenAI SDK ends the iteration quietly on an abort of its own signal.
    for await (const _chunk of stream) if (++chunks === 2) controller.abort();
    expect(chunks).toBeGreaterThanOrEqual(2);
    await ledger.flush();
    const billed = await event('oa-aborted');
    expect(billed.status).toBe('priced');
    expect(billed.usage.prompt_tokens).toBe(countPromptTokens({ model: GPT4O, messages: MESSAGES }));
    expect(billed.usage.completion_tokens).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(upstream.calls.at(-1)!.closedEarly).toBe(true);
  });

  it('a non-streamed completion is billed from its usage, and a hold is reserved first and captured', async () => {
    const completion = await openaiClient('oa-plain', { hold_usd: '0.5' }).chat.completions.create({ model: 'fixture:plain', messages: MESSAGES });
    expect(completion.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 20 });
    await ledger.flush();
    const billed = await event('oa-plain');
    expect(billed.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 20, cached_tokens: 10, reasoning_tokens: 5 });
    const hold = (await t.admin(t.http.get(`/v1/holds/${encodeURIComponent(billed.hold_id)}`)).expect(200)).body;
    expect(hold).toMatchObject({ status: 'captured', captured_event_id: 'oa-plain' });
  });

  it('a hold larger than the balance stops the call before the upstream sees it', async () => {
    const before = upstream.calls.length;
    await expect(openaiClient('oa-broke', { hold_usd: '1000000' }).chat.completions.create({ model: 'fixture:plain', messages: MESSAGES })).rejects.toThrow();
    expect(upstream.calls.length).toBe(before);
    await expect(ledger.createHold({ hold_id: 'h-broke', user_id: 'u_42', amount_usd: '1000000' })).rejects.toBeInstanceOf(LedgerInsufficientFundsError);
  });

  it('AI SDK createOpenAI({fetch}) + streamText: billed as the fixture bills directly', async () => {
    const provider = createOpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', fetch: ledgerFetch(globalThis.fetch, { ledger }) });
    const fixture = '15-openrouter-comment-keepalives-and-trailing-usage-chunk';
    const result = streamText({
      model: provider.chat(`fixture:${fixture}`),
      messages: MESSAGES,
      headers: { 'x-ledger-event-id': 'ai-fetch', 'x-ledger-user-id': 'u_42', 'x-ledger-contributor-id': 'c_std', 'x-ledger-model': GPT4O },
    });
    expect(await result.text).toContain('Autumn moonlight');
    await ledger.flush();
    expect(Object.keys(upstream.calls.at(-1)!.headers).filter((name) => name.startsWith('x-ledger-'))).toEqual([]);
    const billed = await event('ai-fetch');
    const direct = await billedDirectly(fixture, sseFixture(fixture), countPromptTokens({ model: GPT4O, messages: MESSAGES }));
    expect(billed.charge_usd).toBe(direct.charge_usd);
  });

  it('ledgerMiddleware reports generateText and streamText usage', async () => {
    const provider = createOpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' });
    const attribution = (params: { headers?: Record<string, string | undefined> }) => ({ event_id: String(params.headers?.['x-call-id']), ...ATTRIBUTION });
    const model = (name: string) => wrapLanguageModel({ model: provider.chat(name), middleware: ledgerMiddleware({ ledger, attribution }) });
    const generated = await generateText({ model: model('fixture:plain'), messages: MESSAGES, headers: { 'x-call-id': 'mw-generate' } });
    expect(generated.text).toBe('Canberra.');
    const streamed = streamText({ model: model('fixture:02-openai-usage-final-empty-choices'), messages: MESSAGES, headers: { 'x-call-id': 'mw-stream' } });
    await streamed.consumeStream();
    await ledger.flush();
    expect((await event('mw-generate')).usage).toMatchObject({ prompt_tokens: NON_STREAM_USAGE.prompt_tokens, completion_tokens: NON_STREAM_USAGE.completion_tokens, cached_tokens: 10, reasoning_tokens: 5 });
    expect((await event('mw-stream')).usage).toMatchObject({ prompt_tokens: 1184, completion_tokens: 215, cached_tokens: 1024, reasoning_tokens: 192 });
  });
});
