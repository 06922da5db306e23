import fc from 'fast-check';
import { RawUsage } from './raw-usage.js';

describe('RawUsage (the usage a provider stream reached)', () => {
  it('Anthropic: message_start then cumulative message_delta usages, the last value of each field wins, never summed', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), fc.array(fc.nat(5_000), { maxLength: 5 }), (input, cacheRead, outputs) => {
        const usage = new RawUsage();
        usage.read({ type: 'message_start', message: { usage: { input_tokens: input, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 0, output_tokens: 1 } } });
        usage.read({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } });
        for (const output of outputs) usage.read({ type: 'message_delta', delta: {}, usage: { output_tokens: output } });
        expect(usage.usage()).toEqual({ prompt_tokens: input + cacheRead, completion_tokens: outputs.at(-1) ?? 1, ...(cacheRead ? { cached_tokens: cacheRead } : {}) });
      }),
    );
  });

  it('Gemini usageMetadata (thoughts outside candidates), Responses response.usage and chat usage', () => {
    const gemini = new RawUsage();
    gemini.read({ candidates: [], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 5, thoughtsTokenCount: 185 } });
    gemini.read({ candidates: [], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 23, thoughtsTokenCount: 185 } });
    expect(gemini.usage()).toEqual({ prompt_tokens: 9, completion_tokens: 208, reasoning_tokens: 185 });
    const responses = new RawUsage();
    responses.read({ type: 'response.created', response: { usage: null } });
    expect(responses.usage()).toBeUndefined();
    responses.read({ type: 'response.completed', response: { usage: { input_tokens: 7112, input_tokens_details: { cached_tokens: 3072 }, output_tokens: 463, output_tokens_details: { reasoning_tokens: 64 } } } });
    expect(responses.usage()).toEqual({ prompt_tokens: 7112, cached_tokens: 3072, completion_tokens: 463, reasoning_tokens: 64 });
    const chat = new RawUsage();
    chat.read({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 50, completion_tokens: 20 } });
    expect(chat.usage()).toEqual({ prompt_tokens: 50, completion_tokens: 20 });
  });
});
