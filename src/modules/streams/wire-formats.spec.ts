// Every wire format's recorded streams and bodies (test/fixtures/formats): the expected result
// whole, byte by byte and for any split points of the bytes; format detection and refusal.
import fc from 'fast-check';
import { reassembleResponse } from './response-reassembler.js';
import { reassembleSse } from './sse-reassembler.js';
import { STREAM_FORMATS, formatOfEvent, formatOfResponse, type StreamFormat } from './stream-format.js';
import { fixtureView, loadFormatFixtures, loadSseFixtures, splitAt, splitEvery } from './testing/sse-test-helpers.js';

const fixtures = loadFormatFixtures();
const streams = fixtures.filter((f) => f.kind === 'stream');
const responses = fixtures.filter((f) => f.kind === 'response');
const json = (body: Uint8Array) => JSON.parse(new TextDecoder().decode(body)) as unknown;

describe('wire-format streams (test/fixtures/formats)', () => {
  it('covers each new format', () => {
    const formats = new Set(streams.map((f) => f.expected.format));
    expect([...formats].sort()).toEqual(['anthropic-messages', 'gemini', 'openai-responses']);
  });

  describe.each(streams.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const whole = reassembleSse(fixture.body);

    it('matches expected.json, detected and with its format given', () => {
      expect(JSON.parse(JSON.stringify(fixtureView({ ...whole })))).toStrictEqual(fixture.expected);
      expect(reassembleSse(fixture.body, undefined, fixture.expected.format as StreamFormat)).toEqual(whole);
    });

    it('one byte per chunk gives the same result', () => {
      expect(reassembleSse(splitEvery(fixture.body, 1))).toEqual(whole);
    });

    it('any split points of the bytes give the same result', () => {
      fc.assert(
        fc.property(fc.array(fc.nat({ max: fixture.body.length }), { maxLength: 40 }), (offsets) => {
          expect(reassembleSse(splitAt(fixture.body, offsets))).toEqual(whole);
        }),
        { numRuns: 60, seed: 33 },
      );
    });

    it('with another format given: a format error, nothing of it reassembled', () => {
      const other = STREAM_FORMATS.find((format) => format !== fixture.expected.format)!;
      const result = reassembleSse(fixture.body, undefined, other);
      expect(result.error).toMatchObject({ source: 'format', code: 'unsupported_stream_format' });
      expect(result).toMatchObject({ content: '', tool_calls: [], usage: null });
    });
  });
});

describe('wire-format response bodies', () => {
  it.each(responses.map((f) => [f.name, f] as const))('%s matches expected.json', (_name, fixture) => {
    const result = reassembleResponse(json(fixture.body));
    expect(result.ok).toBe(true);
    if (result.ok) expect(JSON.parse(JSON.stringify(fixtureView({ ...result.stream })))).toStrictEqual(fixture.expected);
  });

  it('a body reads the same as the stream of the same call (Anthropic text: same content and finish)', () => {
    const body = reassembleResponse(json(responses.find((f) => f.name === 'anthropic-text-response')!.body));
    const stream = reassembleSse(streams.find((f) => f.name === 'anthropic-text')!.body);
    expect(body.ok && body.stream.finish_reason).toBe(stream.finish_reason);
    expect(body.ok && body.stream.model).toBe(stream.model);
  });

  it('a chat.completion: content, tool calls, finish, usage and tier', () => {
    const result = reassembleResponse({
      id: 'chatcmpl-1', object: 'chat.completion', model: 'gpt-4o-2024-08-06', service_tier: 'default',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Checking.', tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ] } }],
      usage: { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110, prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.stream).toMatchObject({ format: 'openai-chat', content: 'Checking.', finish_reason: 'tool_calls', service_tier: 'default', truncated: false });
    expect(result.stream.tool_calls.map((c) => [c.index, c.id, c.name, c.arguments])).toEqual([[0, 'call_a', 'get_weather', { city: 'Oslo' }], [1, 'call_b', 'get_time', {}]]);
    expect(result.stream.usage).toEqual({ prompt_tokens: 80, completion_tokens: 30, total_tokens: 110, cached_tokens: 64, reasoning_tokens: 0 });
  });

  it('refuses a body of no known format, or of another format than the one given', () => {
    for (const body of [{}, [], null, 'text', 42, { object: 'list', data: [] }, { type: 'error', error: { type: 'x' } }, [{ candidates: [] }, { choices: [] }]]) {
      expect(reassembleResponse(body).ok).toBe(false);
    }
    expect(reassembleResponse(json(responses[0]!.body), 'openai-chat').ok).toBe(false);
  });

  it('a Gemini JSON array (streamGenerateContent without alt=sse) is its chunks in order', () => {
    const chunks = new TextDecoder().decode(streams.find((f) => f.name === 'gemini-text')!.body).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.slice('data: '.length)) as unknown);
    const result = reassembleResponse(chunks);
    expect(result.ok && fixtureView({ ...result.stream })).toEqual({ ...streams.find((f) => f.name === 'gemini-text')!.expected, truncated: false });
  });
});

describe('format detection', () => {
  it('every chat fixture of test/fixtures/sse is detected as openai-chat', () => {
    for (const fixture of loadSseFixtures()) {
      const { format } = reassembleSse(fixture.body);
      expect([fixture.name, format]).toEqual([fixture.name, 'openai-chat']);
    }
  });

  it('names a format by the event type, object, choices, candidates or usageMetadata; null when the event does not say', () => {
    expect(formatOfEvent('message', { type: 'response.created' })).toBe('openai-responses');
    expect(formatOfEvent('response.output_text.delta', { delta: 'x' })).toBe('openai-responses');
    expect(formatOfEvent('ping', {})).toBe('anthropic-messages');
    expect(formatOfEvent('message', { type: 'message_stop' })).toBe('anthropic-messages');
    expect(formatOfEvent('message', { choices: [] })).toBe('openai-chat');
    expect(formatOfEvent('message', { usage: { prompt_tokens: 1, completion_tokens: 1 } })).toBe('openai-chat');
    expect(formatOfEvent('message', { candidates: [] })).toBe('gemini');
    expect(formatOfEvent('message', { usageMetadata: {} })).toBe('gemini');
    expect(formatOfEvent('error', { type: 'error', error: {} })).toBeNull();
    expect(formatOfEvent('message', { id: 'x' })).toBeNull();
    expect(formatOfResponse({ object: 'response', output: [] })).toBe('openai-responses');
  });

  it('a JSON array is Gemini only when each item is a Gemini response object: nested arrays are none, however deep (no recursion)', () => {
    expect(formatOfResponse([{ candidates: [] }, { usageMetadata: {} }])).toBe('gemini');
    expect(formatOfResponse([[{ candidates: [] }]])).toBeNull();
    let deep: unknown = [{ candidates: [] }];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(formatOfResponse(deep)).toBeNull();
    expect(reassembleResponse(deep)).toMatchObject({ ok: false });
  });

  it('a body that names no format has none; an error before any event names one ends it', () => {
    expect(reassembleSse('data: {"id":"x"}\n\n')).toMatchObject({ format: null, error: null });
    expect(reassembleSse('hello, this is not a stream')).toMatchObject({ format: null });
    expect(reassembleSse('data: {"error":{"code":429,"message":"quota"}}\n\n')).toMatchObject({ format: null, error: { code: '429', source: 'provider' } });
  });

  it('a later event of another format does not switch the format (the first one that names a format decides)', () => {
    const body = 'data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"b"}}]}\n\n';
    expect(reassembleSse(body)).toMatchObject({ format: 'gemini', content: 'a' });
  });
});
