// The rules of pricing.md "Other wire formats" that the recorded fixtures do not each show.
import { reassembleSse } from './sse-reassembler.js';
import { geminiUsage } from './gemini/gemini-accumulator.js';

const sse = (events: Array<Record<string, unknown>>) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
const completed = (usage: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'response.completed', response: { model: 'gpt-5', status: 'completed', usage, ...extra } });

describe('OpenAI Responses', () => {
  const fn = (index: number, callId: string) => ({ type: 'response.output_item.added', output_index: index, item: { type: 'function_call', call_id: callId, name: `f${index}`, arguments: '' } });

  it('arguments: the deltas joined; the .done arguments only when no delta came; the item\'s only when neither', () => {
    const result = reassembleSse(sse([
      fn(0, 'c0'), { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"a":' }, { type: 'response.function_call_arguments.delta', output_index: 0, delta: '1}' },
      { type: 'response.function_call_arguments.done', output_index: 0, arguments: '{"a":2}' },
      fn(1, 'c1'), { type: 'response.function_call_arguments.done', output_index: 1, arguments: '{"b":1}' },
      fn(2, 'c2'), { type: 'response.output_item.done', output_index: 2, item: { type: 'function_call', call_id: 'c2', name: 'f2', arguments: '{"c":1}' } },
      completed({ input_tokens: 5, output_tokens: 3 }),
    ]));
    expect(result.tool_calls.map((c) => [c.index, c.id, c.arguments_raw])).toEqual([[0, 'c0', '{"a":1}'], [1, 'c1', '{"b":1}'], [2, 'c2', '{"c":1}']]);
  });

  it('a web search is counted once, whether seen in output_item.done, in the terminal output or both; in-progress ones not', () => {
    const search = (id: string, status = 'completed') => ({ type: 'web_search_call', id, status });
    const result = reassembleSse(sse([
      { type: 'response.output_item.done', output_index: 0, item: search('ws_1') },
      { type: 'response.output_item.added', output_index: 1, item: search('ws_2', 'in_progress') },
      completed({ input_tokens: 5, output_tokens: 3 }, { output: [search('ws_1'), search('ws_3'), search('ws_4', 'failed')] }),
    ]));
    expect(result.usage).toMatchObject({ web_search_calls: 2 });
  });

  it('audio and image details, the cache write count, and "auto" is no tier', () => {
    const result = reassembleSse(sse([completed({ input_tokens: 100, input_tokens_details: { cached_tokens: 10, cache_write_tokens: 20, audio_tokens: 30 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 5, image_tokens: 40 }, total_tokens: 150 }, { service_tier: 'auto' })]));
    expect(result.usage).toEqual({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cached_tokens: 10, reasoning_tokens: 5, cache_write_5m_tokens: 20, prompt_audio_tokens: 30, completion_image_tokens: 40 });
    expect(result.service_tier).toBeNull();
  });

  it('response.failed is terminal with the provider error; an error event ends the stream, truncated', () => {
    const failed = reassembleSse(sse([{ type: 'response.failed', response: { model: 'gpt-5', status: 'failed', error: { code: 'server_error', message: 'boom' }, usage: { input_tokens: 5, output_tokens: 0 } } }]));
    expect(failed).toMatchObject({ finish_reason: 'failed', truncated: false, error: { code: 'server_error', source: 'provider' }, usage: { prompt_tokens: 5 } });
    const errored = reassembleSse(sse([{ type: 'response.output_text.delta', output_index: 0, delta: 'Hi' }, { type: 'error', code: 'rate_limit_exceeded', message: 'slow down' }]));
    expect(errored).toMatchObject({ content: 'Hi', truncated: true, error: { code: 'rate_limit_exceeded', source: 'event' } });
  });

  it('an error event is followed by response.failed (OpenAI\'s order): its usage and status are read, the error event\'s error kept; nothing else after the error counts', () => {
    const failed = { type: 'response.failed', response: { model: 'gpt-5', status: 'failed', error: { code: 'server_error', message: 'boom' }, usage: { input_tokens: 9, output_tokens: 4 } } };
    const result = reassembleSse(sse([
      { type: 'response.output_text.delta', output_index: 0, delta: 'Hi' },
      { type: 'error', error: { code: 'server_error', message: 'boom' } },
      { type: 'response.output_text.delta', output_index: 0, delta: ' more' },
      failed,
      completed({ input_tokens: 100, output_tokens: 100 }),
    ]));
    expect(result).toMatchObject({ content: 'Hi', finish_reason: 'failed', truncated: false, usage: { prompt_tokens: 9, completion_tokens: 4 }, error: { code: 'server_error', source: 'event' } });
    // The same with the format given (the error read before any event names the format).
    const first = reassembleSse(sse([{ type: 'error', code: 'server_error', message: 'boom' }, failed]), undefined, 'openai-responses');
    expect(first).toMatchObject({ finish_reason: 'failed', truncated: false, usage: { prompt_tokens: 9 }, error: { code: 'server_error', source: 'event' } });
  });
});

describe('Anthropic Messages', () => {
  const start = { type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 10, output_tokens: 1 } } };
  it('server_tool_use input deltas are not a client call; a text_delta in a non-text block is not content', () => {
    const result = reassembleSse(sse([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'not here' } },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: 'Hel' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9, server_tool_use: { web_search_requests: 1 } } },
      { type: 'message_stop' },
    ]));
    expect(result).toMatchObject({ content: 'Hello', reasoning: 'hmm', tool_calls: [], finish_reason: 'end_turn', truncated: false });
    expect(result.usage).toEqual({ prompt_tokens: 10, completion_tokens: 9, web_search_calls: 1 });
  });

  it('cache writes split 5m / 1h by the message_start breakdown; a stream without message_stop is truncated', () => {
    const result = reassembleSse(sse([
      { type: 'message_start', message: { usage: { input_tokens: 4, output_tokens: 1, cache_read_input_tokens: 100, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 }, service_tier: 'priority' } } },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 20 } },
    ]));
    expect(result.usage).toEqual({ prompt_tokens: 404, completion_tokens: 20, cached_tokens: 100, cache_write_5m_tokens: 100, cache_write_1h_tokens: 200 });
    expect(result).toMatchObject({ service_tier: 'priority', finish_reason: 'max_tokens', truncated: true });
  });
});

describe('Gemini', () => {
  it('usage by modality: audio and image in, cached audio, audio and image out', () => {
    expect(geminiUsage({
      promptTokenCount: 1000, cachedContentTokenCount: 300, candidatesTokenCount: 200, totalTokenCount: 1200,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 400 }, { modality: 'AUDIO', tokenCount: 500 }, { modality: 'IMAGE', tokenCount: 100 }],
      cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 250 }, { modality: 'TEXT', tokenCount: 50 }],
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 150 }, { modality: 'IMAGE', tokenCount: 30 }, { modality: '__proto__', tokenCount: 1 }],
    })).toEqual({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, cached_tokens: 300, prompt_audio_tokens: 500, cached_audio_tokens: 250, prompt_image_tokens: 100, completion_audio_tokens: 150, completion_image_tokens: 30 });
    expect(geminiUsage({ trafficType: 'ON_DEMAND' })).toBeNull();
  });

  it('a blocked prompt ends the call; an error object ends the stream; the candidate with index 0 only', () => {
    expect(reassembleSse(sse([{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } }]))).toMatchObject({ truncated: false, usage: { prompt_tokens: 7, completion_tokens: 0 } });
    expect(reassembleSse(sse([{ candidates: [{ content: { parts: [{ text: 'a' }] } }] }, { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }]))).toMatchObject({ content: 'a', truncated: true, error: { code: '503' } });
    expect(reassembleSse(sse([{ candidates: [{ index: 1, content: { parts: [{ text: 'b' }] } }, { index: 0, content: { parts: [{ text: 'a' }] }, finishReason: 'MAX_TOKENS' }] }]))).toMatchObject({ content: 'a', finish_reason: 'MAX_TOKENS' });
  });
});
