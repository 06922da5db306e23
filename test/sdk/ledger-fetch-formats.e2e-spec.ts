// ledgerFetch with the real clients of every wire format (openai@6 chat, responses and embeddings,
// @anthropic-ai/sdk messages.create / messages.stream, the AI SDK's Google provider) against an
// upstream replaying real recorded answers (test/fixtures/sdk-upstream) and the real API behind a
// recording proxy: each call reaches the caller unchanged, is reported to the route and `format`
// api.md names with the request's model and prompt tokens, and is billed on the provider's usage.
// The Responses, Anthropic and Gemini reports are billed by the server's per-format reassemblers and
// POST /v1/usage-events/response (#33 items 1-2).
import Anthropic from '@anthropic-ai/sdk';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { LedgerClient, ledgerFetch } from '../../sdk/src/index.js';
import { startLedgerProxy, type LedgerProxy } from './support/ledger-proxy.js';
import { startSdkTestbed, type SdkTestbed } from './support/sdk-testbed.js';
import { EMBEDDING_USAGE, formatFixture, RENAMED_MODEL, type SseUpstream } from './support/sse-upstream.js';

const WHO = { user_id: 'u_42', contributor_id: 'c_std' };
const MODELS = ['gpt-4o', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'text-embedding-3-small', RENAMED_MODEL];

describe('ledgerFetch bills every wire format with the real clients', () => {
  let bed: SdkTestbed;
  let upstream: SseUpstream;
  let proxy: LedgerProxy;
  let ledger: LedgerClient;
  let fetchWithLedger: ReturnType<typeof ledgerFetch>;

  beforeAll(async () => {
    // The dearer the later: a model swap shows in the charge.
    bed = await startSdkTestbed('sdk_formats', Object.fromEntries(MODELS.map((model, index) => [model, [String(index + 1), String(10 * (index + 1))]])));
    upstream = bed.upstream;
    proxy = await startLedgerProxy(bed.ledgerUrl);
    ledger = new LedgerClient({ baseUrl: proxy.url, apiKey: bed.gatewayKey });
    // Attribution without `model`: the model billed is the one the request names.
    fetchWithLedger = ledgerFetch(globalThis.fetch, { ledger, attribution: (request) => ({ event_id: request.headers.get('x-call-id')!, ...WHO }) });
  });
  afterAll(async () => {
    ledger?.close();
    await proxy?.close();
    await bed?.close();
  });

  const openai = () => new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', fetch: fetchWithLedger, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: upstream.url, apiKey: 'sk-ant-upstream', fetch: fetchWithLedger, maxRetries: 0 });
  const google = () => createGoogleGenerativeAI({ baseURL: `${upstream.url}/v1beta`, apiKey: 'g-upstream', fetch: fetchWithLedger });
  const call = (id: string, extra: Record<string, string> = {}) => ({ headers: { 'x-call-id': id, ...extra } });

  /** The one report the SDK sent for the event, and the event the ledger billed from it. */
  async function billed(eventId: string) {
    await ledger.flush();
    const report = proxy.reports().find((r) => r.query.get('event_id') === eventId);
    // Not 200-checked: a report the ledger refused shows as the event's missing status below.
    const event = await bed.event(eventId);
    return { report, event };
  }

  it('Responses API, streamed (responses.create stream: true): reported as openai-responses SSE, billed on response.completed usage', async () => {
    const stream = await openai().responses.create({ model: 'gpt-4o', input: 'What happened in AI today?', stream: true }, call('fmt-resp-stream'));
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toMatch(/^Got itHere are a few \*\*AI/);
    expect(upstream.calls.at(-1)!.sent.equals(formatFixture('responses-text.sse'))).toBe(true);
    const { report, event } = await billed('fmt-resp-stream');
    expect(report).toMatchObject({ path: '/v1/usage-events/stream', status: 201 });
    expect(Object.fromEntries(report!.query)).toMatchObject({ format: 'openai-responses', model: 'gpt-4o' });
    expect(Number(report!.query.get('prompt_tokens'))).toBeGreaterThan(5);
    expect(event).toMatchObject({ status: 'priced', model: 'gpt-4o', usage: { prompt_tokens: 7112, cached_tokens: 3072, completion_tokens: 463, reasoning_tokens: 64 } });
  });

  it('Responses API, not streamed: the JSON answer goes to /v1/usage-events/response', async () => {
    const response = await openai().responses.create({ model: 'gpt-4o', instructions: 'Be brief.', input: [{ role: 'user', content: 'News?' }] }, call('fmt-resp-json'));
    expect(response.output_text).toContain('latest AI updates');
    const { report, event } = await billed('fmt-resp-json');
    expect(report).toMatchObject({ path: '/v1/usage-events/response', status: 201 });
    expect(report!.query.get('format')).toBe('openai-responses');
    expect(event).toMatchObject({ status: 'priced', model: 'gpt-4o', usage: { prompt_tokens: 7243, cached_tokens: 3072, completion_tokens: 423, reasoning_tokens: 58 } });
  });

  it('Anthropic SDK messages.create: reported as an anthropic-messages response', async () => {
    const message = await anthropic().messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }, call('fmt-anth-json'));
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining("I'm doing well") });
    const { report, event } = await billed('fmt-anth-json');
    expect(report).toMatchObject({ path: '/v1/usage-events/response', status: 201 });
    expect(Object.fromEntries(report!.query)).toMatchObject({ format: 'anthropic-messages', model: 'claude-sonnet-4-5' });
    expect(event).toMatchObject({ status: 'priced', model: 'claude-sonnet-4-5', usage: { prompt_tokens: 12, completion_tokens: 29 } });
  });

  it('Anthropic SDK messages.stream (text) and a streamed tool_use: billed on message_delta usage', async () => {
    const text = await anthropic().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, system: 'Be kind.', messages: [{ role: 'user', content: 'How are you?' }] }, call('fmt-anth-stream')).finalText();
    expect(text).toContain("I'm doing well");
    const tool = await anthropic().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] }, call('fmt-anth-tool', { 'x-upstream-fixture': 'anthropic-tool' })).finalMessage();
    expect(tool.content[0]).toMatchObject({ type: 'tool_use', name: 'json', input: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] } });
    const streamed = await billed('fmt-anth-stream');
    expect(Object.fromEntries(streamed.report!.query)).toMatchObject({ format: 'anthropic-messages', model: 'claude-sonnet-4-5' });
    expect(streamed.event).toMatchObject({ status: 'priced', usage: { prompt_tokens: 12, completion_tokens: 30 } });
    const tooled = await billed('fmt-anth-tool');
    expect(tooled.event).toMatchObject({ status: 'priced', usage: { prompt_tokens: 849, completion_tokens: 47 }, stream: { finish_reason: 'tool_use', tool_calls: [expect.objectContaining({ name: 'json', arguments_valid: true })] } });
  });

  it('Gemini through the AI SDK (createGoogleGenerativeAI({fetch})): streamGenerateContent?alt=sse and generateContent, the model from the path', async () => {
    const streamed = streamText({ model: google()('gemini-2.5-flash'), prompt: 'How many r in strawberry?', headers: { 'x-call-id': 'fmt-gem-stream' } });
    expect(await streamed.text).toContain('"r"s in strawberry');
    const generated = await generateText({ model: google()('gemini-2.5-flash'), prompt: 'How many r in strawberry?', headers: { 'x-call-id': 'fmt-gem-json' } });
    expect(generated.text).toContain("r's in strawberry");
    const stream = await billed('fmt-gem-stream');
    expect(stream.report).toMatchObject({ path: '/v1/usage-events/stream' });
    expect(Object.fromEntries(stream.report!.query)).toMatchObject({ format: 'gemini', model: 'gemini-2.5-flash' });
    expect(stream.event).toMatchObject({ status: 'priced', model: 'gemini-2.5-flash', usage: { prompt_tokens: 9, completion_tokens: 208, reasoning_tokens: 185 } });
    const json = await billed('fmt-gem-json');
    expect(json.report).toMatchObject({ path: '/v1/usage-events/response' });
    expect(json.event).toMatchObject({ status: 'priced', usage: { prompt_tokens: 9, completion_tokens: 272, reasoning_tokens: 244 } });
  });

  it('Gemini streamGenerateContent without alt=sse (one JSON array, streamed) is reported as the gemini stream it is', async () => {
    const response = await fetchWithLedger(`${upstream.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-call-id': 'fmt-gem-array', 'x-upstream-fixture': 'gemini-tool' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Weather in San Francisco?' }] }] }),
    });
    const array = (await response.json()) as Array<{ candidates: unknown[] }>;
    expect(array).toHaveLength(2);
    const { report, event } = await billed('fmt-gem-array');
    expect(report).toMatchObject({ path: '/v1/usage-events/stream' });
    expect(event).toMatchObject({ status: 'priced', usage: { prompt_tokens: 29, completion_tokens: 60, reasoning_tokens: 45 }, stream: { tool_calls: [expect.objectContaining({ name: 'weather', arguments_valid: true })] } });
  });

  it('a cut-off Anthropic stream is billed on the usage it carried so far (message_start), marked truncated', async () => {
    const stream = anthropic().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'How are you?' }] }, call('fmt-anth-cut', { 'x-upstream-mode': 'cut' }));
    await expect(stream.finalMessage()).rejects.toThrow();
    const { event } = await billed('fmt-anth-cut');
    expect(event).toMatchObject({ status: 'priced', usage: { prompt_tokens: 12 }, stream: { truncated: true } });
  });
});

describe('ledgerFetch for chat and embeddings (billed by the ledger before the format routes too)', () => {
  let bed: SdkTestbed;
  let upstream: SseUpstream;
  let ledger: LedgerClient;

  beforeAll(async () => {
    bed = await startSdkTestbed('sdk_formats_chat', { 'gpt-4o': ['2.5', '10'], 'text-embedding-3-small': ['0.02', '0'], [RENAMED_MODEL]: ['150', '600'] });
    upstream = bed.upstream;
    ledger = new LedgerClient({ baseUrl: bed.ledgerUrl, apiKey: bed.gatewayKey });
  });
  afterAll(async () => {
    ledger?.close();
    await bed?.close();
  });

  const client = (extra: Record<string, string> = {}) =>
    new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream', maxRetries: 0, fetch: ledgerFetch(globalThis.fetch, { ledger, attribution: (request) => ({ event_id: request.headers.get('x-call-id')!, ...WHO, ...extra }) }) });
  const event = async (id: string) => (await ledger.flush(), bed.event(id));

  it('bills the model the request names, not the dearer one the upstream answer names (#34 item 8)', async () => {
    const completion = await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Capital of Australia?' }] }, { headers: { 'x-call-id': 'chat-renamed', 'x-upstream-mode': 'renamed' } });
    expect(completion.model).toBe(RENAMED_MODEL);
    expect(await event('chat-renamed')).toMatchObject({ status: 'priced', model: 'gpt-4o', usage: { prompt_tokens: 50, completion_tokens: 20 } });
  });

  it('a stream: true call answered with JSON is billed as a response, not dead-lettered (#34 item 8)', async () => {
    const errors: Error[] = [];
    const strict = new LedgerClient({ baseUrl: bed.ledgerUrl, apiKey: bed.gatewayKey, onReportError: (error) => errors.push(error) });
    const fetch = ledgerFetch(globalThis.fetch, { ledger: strict, attribution: (request) => ({ event_id: request.headers.get('x-call-id')!, ...WHO }) });
    const response = await fetch(`${upstream.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-call-id': 'chat-json-to-stream', 'x-upstream-mode': 'json' }, body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] }) });
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
    await strict.flush();
    strict.close();
    expect(errors).toEqual([]);
    expect(await event('chat-json-to-stream')).toMatchObject({ status: 'priced', model: 'gpt-4o', usage: { prompt_tokens: 50, completion_tokens: 20 } });
  });

  it('an embedding is billed from its usage', async () => {
    const answer = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'The food was delicious' }, { headers: { 'x-call-id': 'embed-1' } });
    expect(answer.usage).toEqual(EMBEDDING_USAGE);
    expect(await event('embed-1')).toMatchObject({ status: 'priced', model: 'text-embedding-3-small', usage: { prompt_tokens: 8, completion_tokens: 0 } });
  });
});
