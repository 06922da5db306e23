import {
  DEFAULT_REASSEMBLER_LIMITS,
  EVENT_BYTES_MAX,
  STREAM_BYTES_MAX,
  StreamReassembler,
  reassembleSse,
} from './sse-reassembler.js';
import { choiceChunk, dataEvent, sseBody, splitEvery, splitRandom, toBytes } from './testing/sse-test-helpers.js';

const text = (content: string) => dataEvent(choiceChunk({ content }));

/** The same body whole, byte by byte and in random chunks must give one result. */
function reassembleAllWays(body: string, limits: Parameters<typeof reassembleSse>[1]) {
  const bytes = toBytes(body);
  const whole = reassembleSse(bytes, limits);
  expect(reassembleSse(splitEvery(bytes, 1), limits)).toEqual(whole);
  expect(reassembleSse(splitRandom(bytes, 99), limits)).toEqual(whole);
  return whole;
}

describe('memory limits', () => {
  it('has named defaults', () => {
    expect(DEFAULT_REASSEMBLER_LIMITS).toEqual({
      eventBytesMax: EVENT_BYTES_MAX,
      streamBytesMax: STREAM_BYTES_MAX,
      toolCallsMax: 128,
      toolArgumentsBytesMax: 4 * 1024 * 1024,
      contentBytesMax: 16 * 1024 * 1024,
    });
    expect(EVENT_BYTES_MAX).toBe(8 * 1024 * 1024);
    expect(STREAM_BYTES_MAX).toBe(32 * 1024 * 1024);
  });

  it('event_too_large: stops at an oversized event and keeps what came before', () => {
    const body = `${text('ok')}${text('x'.repeat(200))}${text('after')}data: [DONE]\n\n`;
    const result = reassembleAllWays(body, { eventBytesMax: 150 });
    expect(result).toMatchObject({ content: 'ok', done: false, truncated: false });
    expect(result.error).toEqual({ code: 'event_too_large', message: 'one SSE event exceeds 150 bytes', source: 'limit' });
  });

  it('event_too_large: a line that never ends is not buffered past the limit', () => {
    const reassembler = new StreamReassembler({ eventBytesMax: 1024 });
    reassembler.push(text('ok'));
    reassembler.push('data: {"choices":[');
    for (let i = 0; i < 100 && !reassembler.stopped; i++) reassembler.push('x'.repeat(100));
    expect(reassembler.stopped).toBe(true);
    expect(reassembler.end()).toMatchObject({ content: 'ok', error: { code: 'event_too_large' } });
  });

  it('accepts one 1.43 MB image event (OpenRouter Gemini 2.5 Flash Image) and keeps its usage (#24 item 7)', () => {
    // The whole base64 PNG arrives in one event beside an empty content delta; usage comes last.
    const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0KGgo'.repeat(130_000)}` } };
    const usage = { prompt_tokens: 7, completion_tokens: 1290, total_tokens: 1297, completion_tokens_details: { reasoning_tokens: 0, image_tokens: 1290 } };
    const body = sseBody([choiceChunk({ role: 'assistant', content: '' }), choiceChunk({ content: '', images: [image] }), choiceChunk({}, { finish_reason: 'stop' }), { choices: [], usage }]);
    expect(toBytes(body).length).toBeGreaterThan(1_430_000);
    const result = reassembleAllWays(body, DEFAULT_REASSEMBLER_LIMITS);
    expect(result).toMatchObject({ error: null, done: true, finish_reason: 'stop', content: '', usage: { prompt_tokens: 7, completion_tokens: 1290, total_tokens: 1297 } });
  });

  it('the default event limit of 8 MiB accepts an event of just under 8 MiB', () => {
    const content = 'y'.repeat(EVENT_BYTES_MAX - 200);
    const result = reassembleSse(sseBody([choiceChunk({ content })]));
    expect(result).toMatchObject({ error: null, done: true });
    expect(result.content).toHaveLength(content.length);
    expect(reassembleSse(sseBody([choiceChunk({ content: `${content}${'y'.repeat(300)}` })])).error?.code).toBe(
      'event_too_large',
    );
  });

  it('stream_too_large: reads exactly streamBytesMax bytes, then stops', () => {
    const first = text('a');
    const body = `${first}${text('b')}data: [DONE]\n\n`;
    const cut = reassembleAllWays(body, { streamBytesMax: first.length + 5 });
    expect(cut).toMatchObject({ content: 'a', truncated: false, bytes: body.length });
    expect(cut.error).toMatchObject({ code: 'stream_too_large', source: 'limit' });
    expect(reassembleAllWays(body, { streamBytesMax: body.length })).toMatchObject({ content: 'ab', error: null });
  });

  it('stream_too_large does not replace [DONE] reached within the limit', () => {
    const body = `${text('a')}data: [DONE]\n\n: trailing junk after done\n`;
    const result = reassembleAllWays(body, { streamBytesMax: body.length - 5 });
    expect(result).toMatchObject({ content: 'a', done: true, error: null });
  });

  it('too_many_tool_calls', () => {
    const calls = [0, 1, 2].map((index) => ({ index, id: `c${index}`, function: { name: 'f', arguments: '{}' } }));
    const body = sseBody([choiceChunk({ tool_calls: calls.slice(0, 2) }), choiceChunk({ tool_calls: calls.slice(2) })]);
    const result = reassembleAllWays(body, { toolCallsMax: 2 });
    expect(result.tool_calls.map((c) => c.id)).toEqual(['c0', 'c1']);
    expect(result.error).toMatchObject({ code: 'too_many_tool_calls', source: 'limit' });
  });

  it('tool_arguments_too_large', () => {
    const delta = (args: string) => choiceChunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: args } }] });
    const result = reassembleAllWays(sseBody([delta('{"k":'), delta('"0123456789"}')]), { toolArgumentsBytesMax: 10 });
    expect(result.tool_calls[0]).toMatchObject({ arguments_raw: '{"k":', arguments_error: true });
    expect(result.error).toMatchObject({ code: 'tool_arguments_too_large', source: 'limit' });
  });

  it('content_too_large counts UTF-8 bytes', () => {
    const result = reassembleAllWays(sseBody([choiceChunk({ content: 'ééé' }), choiceChunk({ content: 'é' })]), {
      contentBytesMax: 7,
    });
    expect(result).toMatchObject({ content: 'ééé', error: { code: 'content_too_large', source: 'limit' } });
  });

  it('a limit of 0 turns that input off without throwing', () => {
    expect(reassembleSse(text('a'), { streamBytesMax: 0 })).toMatchObject({ content: '', error: { code: 'stream_too_large' } });
    expect(reassembleSse(text('a'), { eventBytesMax: 0 })).toMatchObject({ error: { code: 'event_too_large' } });
  });
});
