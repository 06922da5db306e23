import { reassembleSse } from '../sse-reassembler.js';
import { choiceChunk, dataEvent, sseBody, splitEvery, toBytes } from '../testing/sse-test-helpers.js';

const usage = (prompt: number, completion: number, total: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: total,
});

describe('choices (C1-C4)', () => {
  it('C1: only choice.index 0 counts, even when index 1 arrives first (n>1)', () => {
    const body = sseBody([
      choiceChunk({ content: 'B1' }, { index: 1 }),
      choiceChunk({ content: 'A1' }, { index: 0 }),
      { choices: [{ index: 1, delta: { content: 'B2' }, finish_reason: 'length' }, { index: 0, delta: { content: 'A2' } }] },
      choiceChunk({}, { index: 1, finish_reason: 'stop' }),
      choiceChunk({}, { index: 0, finish_reason: 'stop' }),
    ]);
    expect(reassembleSse(body)).toMatchObject({ content: 'A1A2', finish_reason: 'stop' });
  });

  it('C1: `choices` [], null or missing marks a metadata chunk', () => {
    const body = sseBody([
      { choices: null, prompt_filter_results: [] },
      { id: 'x' },
      { choices: [] },
      choiceChunk({ content: 'ok' }, { finish_reason: 'stop' }),
    ]);
    expect(reassembleSse(body)).toMatchObject({ content: 'ok', finish_reason: 'stop', error: null });
  });

  it('C1: a choice without any index is taken as index 0', () => {
    const body = sseBody([{ choices: [{ delta: { content: 'no index' } }] }]);
    expect(reassembleSse(body).content).toBe('no index');
  });

  it('C2: a choice with no delta (Azure filter annotation) only contributes finish_reason', () => {
    const body = sseBody([
      choiceChunk({ content: 'text' }),
      { choices: [{ index: 0, finish_reason: 'content_filter', content_filter_results: {} }] },
    ]);
    expect(reassembleSse(body)).toMatchObject({ content: 'text', finish_reason: 'content_filter' });
  });

  it('C3: a later finish_reason null (or "") does not reset it; the last non-null one wins', () => {
    const body = sseBody([
      choiceChunk({ content: 'a' }, { finish_reason: '' }),
      choiceChunk({}, { finish_reason: 'length' }),
      choiceChunk({}, { finish_reason: 'stop' }),
      choiceChunk({ content: '' }, { finish_reason: null, usage: usage(1, 2, 3) }),
      choiceChunk({}, { finish_reason: '' }),
    ]);
    expect(reassembleSse(body)).toMatchObject({ finish_reason: 'stop', usage: usage(1, 2, 3) });
  });

  it('C3: finish_reason is copied verbatim (not normalised)', () => {
    expect(reassembleSse(sseBody([choiceChunk({}, { finish_reason: 'STOP_SEQUENCE' })])).finish_reason).toBe(
      'STOP_SEQUENCE',
    );
  });

  it('C4: reasoning_content / reasoning and non-string content are ignored', () => {
    const body = sseBody([
      choiceChunk({ reasoning_content: 'think', reasoning: 'hmm' }),
      choiceChunk({ content: 'answer', reasoning_content: 'more' }),
      choiceChunk({ content: null }),
      choiceChunk({ content: { type: 'text', text: 'x' } }),
      choiceChunk({ content: 42 }),
    ]);
    expect(reassembleSse(body).content).toBe('answer');
  });

  it('C4: content sent as an array of typed parts contributes its text parts, in order', () => {
    const body = sseBody([
      choiceChunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hidden' }] }, { type: 'text', text: 'Hel' }] }),
      choiceChunk({ content: [{ type: 'text', text: 'lo' }, { type: 'image_url', image_url: { url: 'data:' } }, { type: 'text', text: ', ' }] }),
      choiceChunk({ content: [{ type: 'text', text: 42 }, 'bare', null, { text: 'untyped' }] }),
      choiceChunk({ content: 'world' }, { finish_reason: 'stop' }),
    ]);
    expect(reassembleSse(body).content).toBe('Hello, world');
  });

  it('C4: text parts count against the content limit like string content', () => {
    const body = sseBody([choiceChunk({ content: [{ type: 'text', text: 'abc' }, { type: 'text', text: 'def' }] })]);
    expect(reassembleSse(body, { contentBytesMax: 5 })).toMatchObject({ content: '', error: { code: 'content_too_large' } });
  });

  it("C4: Perplexity's cumulative choice.message is ignored", () => {
    const body = sseBody([
      { choices: [{ index: 0, delta: { content: 'Hel' }, message: { role: 'assistant', content: 'Hel' } }] },
      { choices: [{ index: 0, delta: { content: 'lo' }, message: { role: 'assistant', content: 'Hello' } }] },
    ]);
    expect(reassembleSse(body).content).toBe('Hello');
  });

  it('model is the first non-empty `model`', () => {
    const body = sseBody([{ model: '', choices: [] }, { model: 'first', choices: [] }, { model: 'second', choices: [] }]);
    expect(reassembleSse(body).model).toBe('first');
    expect(reassembleSse(sseBody([{ choices: [] }])).model).toBeNull();
  });
});

describe('usage (C5)', () => {
  it('is last-wins and never summed (running totals)', () => {
    const body = sseBody([
      choiceChunk({ content: 'a' }, { usage: usage(10, 1, 11) }),
      choiceChunk({ content: 'b' }, { usage: usage(10, 2, 12) }),
      choiceChunk({}, { finish_reason: 'stop', usage: usage(10, 3, 13) }),
    ]);
    expect(reassembleSse(body).usage).toEqual(usage(10, 3, 13));
  });

  it('reads x_groq.usage when top-level usage is absent or null', () => {
    const groq = { x_groq: { id: 'req_1', usage: { ...usage(5, 6, 11), queue_time: 0.01 } } };
    expect(reassembleSse(sseBody([{ choices: [], ...groq }])).usage).toEqual(usage(5, 6, 11));
    expect(reassembleSse(sseBody([{ choices: [], usage: null, ...groq }])).usage).toEqual(usage(5, 6, 11));
    expect(reassembleSse(sseBody([{ choices: [], usage: usage(1, 1, 2), ...groq }])).usage).toEqual(usage(1, 1, 2));
  });

  it('an invalid later usage keeps the earlier valid one; an invalid detail is just left out', () => {
    const body = sseBody([
      { choices: [], usage: usage(1, 2, 3) },
      { choices: [], usage: usage(-5, 2, 3) },
      { choices: [], usage: { ...usage(1, 2, 4), prompt_tokens_details: { cached_tokens: -1 } } },
    ]);
    expect(reassembleSse(body).usage).toEqual(usage(1, 2, 4));
  });

  it('service_tier: the last non-empty one of the chunks or of their usage, verbatim', () => {
    const body = sseBody([
      choiceChunk({ content: 'a' }, { service_tier: 'flex' }),
      choiceChunk({ content: 'b' }, { service_tier: '' }),
      choiceChunk({}, { finish_reason: 'stop', service_tier: null }),
    ]);
    expect(reassembleSse(body).service_tier).toBe('flex');
    const anthropic = sseBody([{ choices: [], usage: { input_tokens: 3, output_tokens: 4, service_tier: 'priority' } }]);
    expect(reassembleSse(anthropic).service_tier).toBe('priority');
    expect(reassembleSse(sseBody([choiceChunk({ content: 'x' })])).service_tier).toBeNull();
  });
});

describe('errors and end of stream (C6, F7, truncation)', () => {
  const text = (content: string) => dataEvent(choiceChunk({ content }));

  it('a data line that is not JSON stops reassembly with a parse error, keeping the partial result', () => {
    const body = `${text('kept')}data: {"choices": [oops\n\n${text('lost')}data: [DONE]\n\n`;
    const result = reassembleSse(body);
    expect(result).toMatchObject({ content: 'kept', truncated: false, done: false });
    expect(result.error).toMatchObject({ code: 'invalid_chunk_json', source: 'parse' });
  });

  it('JSON that is not an object is a parse error too; whitespace-only data is skipped', () => {
    expect(reassembleSse(`${text('a')}data: [1]\n\n`).error).toMatchObject({ code: 'chunk_not_object', source: 'parse' });
    expect(reassembleSse(`${text('a')}data: null\n\n`).error).toMatchObject({ code: 'chunk_not_object' });
    const spaces = reassembleSse(`${text('a')}data:   \n\n${text('b')}data: [DONE]\n\n`);
    expect(spaces).toMatchObject({ content: 'ab', error: null, done: true });
  });

  it('a top-level error takes the chunk choices first; numeric codes become strings', () => {
    const body = sseBody(
      [
        choiceChunk({ content: 'part' }),
        { error: { code: 429, message: 'Rate limited' }, choices: [{ index: 0, delta: { content: '!' }, finish_reason: 'error' }] },
        choiceChunk({ content: 'after' }),
      ],
      false,
    );
    const result = reassembleSse(body);
    expect(result).toMatchObject({ content: 'part!', finish_reason: 'error', truncated: false });
    expect(result.error).toEqual({ code: '429', message: 'Rate limited', source: 'provider' });
  });

  it('a string error is a provider error; error: null is not', () => {
    expect(reassembleSse(sseBody([{ error: 'overloaded' }])).error).toEqual({
      code: null,
      message: 'overloaded',
      source: 'provider',
    });
    expect(reassembleSse(sseBody([{ error: null, choices: [] }])).error).toBeNull();
  });

  it('`event: error` with plain-text or bare-object data is reported with source event', () => {
    expect(reassembleSse(`${text('a')}event: error\ndata: upstream exploded\n\n`).error).toEqual({
      code: null,
      message: 'upstream exploded',
      source: 'event',
    });
    expect(reassembleSse('event: error\ndata: {"code":503,"message":"busy"}\n\n').error).toEqual({
      code: '503',
      message: 'busy',
      source: 'event',
    });
  });

  it('caps a very long provider message', () => {
    const message = reassembleSse(sseBody([{ error: { message: 'm'.repeat(5000) } }])).error?.message ?? '';
    expect(message).toHaveLength(2001);
    expect(message.endsWith('…')).toBe(true);
  });

  it('`event: error` data with choices contributes them before stopping', () => {
    const body = `event: error\ndata: ${JSON.stringify({ ...(choiceChunk({ content: 'x' }) as object), error: { message: 'm' } })}\n\n`;
    expect(reassembleSse(body)).toMatchObject({ content: 'x', error: { code: null, message: 'm', source: 'event' } });
  });

  it('truncated: no [DONE] and no finish_reason; or ended inside an event; never with an error', () => {
    expect(reassembleSse(text('a')).truncated).toBe(true);
    const finished = dataEvent(choiceChunk({ content: 'a' }, { finish_reason: 'stop' }));
    expect(reassembleSse(finished)).toMatchObject({ truncated: false, done: false, error: null });
    expect(reassembleSse(`${finished}data: {"choices":[],"us`).truncated).toBe(true);
    expect(reassembleSse(`${finished}data: {"choices":[]}\n`).truncated).toBe(true);
    expect(reassembleSse(`${text('a')}data: [DONE]\n\n`).truncated).toBe(false);
    expect(reassembleSse(`${text('a')}data: nope\n\n`).truncated).toBe(false);
  });

  it('gives the same results one byte at a time', () => {
    const body = toBytes(`${text('é😀')}event: error\ndata: {"error":{"code":"x","message":"y"}}\n\n`);
    expect(reassembleSse(splitEvery(body, 1))).toEqual(reassembleSse(body));
  });
});
