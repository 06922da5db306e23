// ledgerMiddleware with the AI SDK's Anthropic and Google providers (no ledgerFetch) against an
// upstream replaying real recordings and the real API: finished streams bill the provider's usage;
// errored, cut-off and aborted streams are billed on the usage they reached or an estimate of what
// they produced, capturing the hold; a call that produced nothing releases it (#34 item 7). And a
// refused hold reaches the caller as an HTTP 402 its own SDK raises (#36 item 3).
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, streamText, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { LedgerClient, ledgerFetch, ledgerMiddleware } from '../../sdk/src/index.js';
import { startSdkTestbed, type SdkTestbed } from './support/sdk-testbed.js';
import type { SseUpstream } from './support/sse-upstream.js';

const WHO = { user_id: 'u_42', contributor_id: 'c_std' };

describe('ledgerMiddleware and refused holds with the real AI SDK, OpenAI and Anthropic clients', () => {
  let bed: SdkTestbed;
  let upstream: SseUpstream;
  let ledger: LedgerClient;

  beforeAll(async () => {
    bed = await startSdkTestbed('sdk_middleware', { 'claude-sonnet-4-5': ['3', '15'], 'gemini-2.5-flash': ['3', '15'], 'gpt-4o': ['3', '15'] });
    upstream = bed.upstream;
    ledger = new LedgerClient({ baseUrl: bed.ledgerUrl, apiKey: bed.gatewayKey });
  });
  afterAll(async () => {
    ledger?.close();
    await bed?.close();
  });

  const middleware = () => ledgerMiddleware({ ledger, attribution: (params) => ({ event_id: String(params.headers?.['x-call-id']), ...WHO, hold_usd: '1' }) });
  const claude = () => wrapLanguageModel({ model: createAnthropic({ baseURL: `${upstream.url}/v1`, apiKey: 'sk-ant' })('claude-sonnet-4-5'), middleware: middleware() });
  const gemini = () => wrapLanguageModel({ model: createGoogleGenerativeAI({ baseURL: `${upstream.url}/v1beta`, apiKey: 'g' })('gemini-2.5-flash'), middleware: middleware() });
  const event = async (id: string) => (await ledger.flush(), bed.event(id));
  const hold = async (id: string) => (await bed.t.admin(bed.t.http.get(`/v1/holds/${encodeURIComponent(`hold:${id}`)}`)).expect(200)).body;

  it('bills a finished Anthropic and Gemini streamText and a Gemini generateText on the provider usage', async () => {
    expect(await streamText({ model: claude(), prompt: 'How are you?', headers: { 'x-call-id': 'mw-claude' } }).text).toContain("I'm doing well");
    await streamText({ model: gemini(), prompt: 'How many r?', headers: { 'x-call-id': 'mw-gemini' } }).consumeStream();
    await generateText({ model: gemini(), prompt: 'How many r?', headers: { 'x-call-id': 'mw-gemini-json' } });
    expect(await event('mw-claude')).toMatchObject({ status: 'priced', model: 'claude-sonnet-4-5', usage: { prompt_tokens: 12, completion_tokens: 30 } });
    expect(await event('mw-gemini')).toMatchObject({ status: 'priced', model: 'gemini-2.5-flash', usage: { prompt_tokens: 9, completion_tokens: 208, reasoning_tokens: 185 } });
    expect(await event('mw-gemini-json')).toMatchObject({ status: 'priced', usage: { prompt_tokens: 9, completion_tokens: 272 } });
    expect(await hold('mw-claude')).toMatchObject({ status: 'captured' });
  });

  it('bills a streamText the caller aborts on an estimate of what it produced, and captures its hold (#34 item 7)', async () => {
    const controller = new AbortController();
    const result = streamText({ model: gemini(), prompt: 'How many r?', abortSignal: controller.signal, headers: { 'x-call-id': 'mw-aborted', 'x-upstream-mode': 'slow', 'x-upstream-fixture': 'gemini-text' } });
    let text = '';
    for await (const delta of result.textStream) {
      text += delta;
      controller.abort();
    }
    expect(text).not.toBe('');
    const billed = await event('mw-aborted');
    // Gemini's first chunk carries usageMetadata (prompt 9): the usage it reached.
    expect(billed).toMatchObject({ status: 'priced', metadata: { usage_source: 'provider', ended: 'aborted' }, usage: { prompt_tokens: 9 } });
    expect(billed.usage.completion_tokens).toBeGreaterThan(0);
    expect(await hold('mw-aborted')).toMatchObject({ status: 'captured' });
  });

  it('bills an Anthropic stream that ends in an error event on the usage it reached (#34 item 7)', async () => {
    const result = streamText({ model: claude(), prompt: 'How are you?', headers: { 'x-call-id': 'mw-overloaded', 'x-upstream-mode': 'overloaded' }, onError: () => undefined });
    await result.consumeStream();
    const billed = await event('mw-overloaded');
    // message_start's usage (input 12) is the usage it reached; the text it produced bills at least its estimate.
    expect(billed).toMatchObject({ status: 'priced', metadata: { usage_source: 'provider', ended: 'error' }, usage: { prompt_tokens: 12 } });
    expect(billed.usage.completion_tokens).toBeGreaterThan(1);
    expect(await hold('mw-overloaded')).toMatchObject({ status: 'captured' });
  });

  it('bills a cut-off stream on an estimate of the text produced (#34 item 7)', async () => {
    const result = streamText({ model: claude(), prompt: 'How are you?', headers: { 'x-call-id': 'mw-cut', 'x-upstream-mode': 'cut' }, onError: () => undefined });
    await result.consumeStream();
    const billed = await event('mw-cut');
    expect(billed.status).toBe('priced');
    expect(billed.usage.completion_tokens).toBeGreaterThan(0);
    expect(await hold('mw-cut')).toMatchObject({ status: 'captured' });
  });

  it('releases the hold of a call that produced nothing (upstream 500)', async () => {
    const result = streamText({ model: claude(), prompt: 'Hi', maxRetries: 0, headers: { 'x-call-id': 'mw-nothing', 'x-upstream-mode': 'error' }, onError: () => undefined });
    await result.consumeStream();
    await ledger.flush();
    expect(await hold('mw-nothing')).toMatchObject({ status: 'released' });
    expect((await event('mw-nothing')).error).toMatchObject({ code: 'not_found' });
  });

  describe('a refused hold comes back as an HTTP 402 the caller SDK raises (#36 item 3)', () => {
    const broke = () => ledgerFetch(globalThis.fetch, { ledger, attribution: (request) => ({ event_id: request.headers.get('x-call-id') ?? 'x', ...WHO, hold_usd: '1000000' }) });

    it('OpenAI SDK: APIError 402 with the ledger code, no retry, the upstream never called', async () => {
      const before = upstream.calls.length;
      const client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk', fetch: broke() });
      const error = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-call-id': 'refused-openai' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({ status: 402, code: 'insufficient_funds' });
      expect(upstream.calls.length).toBe(before);
    });

    it('Anthropic SDK: PaymentRequiredError carrying the ledger error body', async () => {
      const client = new Anthropic({ baseURL: upstream.url, apiKey: 'sk-ant', fetch: broke() });
      const error = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-call-id': 'refused-anthropic' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error).toMatchObject({ status: 402, error: { error: { code: 'insufficient_funds' } } });
    });

    it('AI SDK: APICallError with statusCode 402, not retryable', async () => {
      const provider = createOpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'sk', fetch: broke() });
      const error = await generateText({ model: provider.chat('gpt-4o'), prompt: 'Hi', headers: { 'x-call-id': 'refused-ai' } }).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 402, isRetryable: false });
      expect((error as APICallError).responseBody).toContain('insufficient_funds');
    });
  });
});
