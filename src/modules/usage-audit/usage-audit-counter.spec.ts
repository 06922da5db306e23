import fc from 'fast-check';
import { comparableReportedTokens, completionTextsOf, counterForModel, countSample } from './usage-audit-counter.js';

const usage = (completion_tokens: number, reasoning_tokens?: number) => ({ prompt_tokens: 10, completion_tokens, ...(reasoning_tokens === undefined ? {} : { reasoning_tokens }) });

describe('usage audit counter', () => {
  it('counts OpenAI families with their encoding and other families with the cl100k estimate', () => {
    expect(counterForModel('openai/gpt-4o')).toBe('o200k_base');
    expect(counterForModel('gpt-4-turbo')).toBe('cl100k_base');
    expect(counterForModel('o3-mini')).toBe('o200k_base');
    expect(counterForModel('anthropic/claude-sonnet-4')).toBe('cl100k_base~estimate');
    expect(counterForModel('meta-llama/llama-3.1-70b')).toBe('cl100k_base~estimate');
  });

  it('takes content, reasoning text, and each tool call name and arguments', () => {
    const texts = completionTextsOf({ content: 'Hi', reasoning: 'think', tool_calls: [{ index: 0, id: 'a', name: 'get_weather', arguments_raw: '{"city":"Oslo"}', arguments: {}, arguments_valid: true } as never] });
    expect(texts).toEqual(['Hi', 'think', 'get_weather', '{"city":"Oslo"}']);
  });

  it('leaves hidden reasoning out of the reported side, and keeps it when its text was streamed', () => {
    expect(comparableReportedTokens({ reasoning: '', usage: usage(500, 300) as never })).toBe(200);
    expect(comparableReportedTokens({ reasoning: 'visible thoughts', usage: usage(500, 300) as never })).toBe(500);
    expect(comparableReportedTokens({ reasoning: '', usage: null })).toBeNull();
  });

  it('counts a sample as the sum of its texts, and nothing to count is no sample', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 5 }), (texts) => {
        const whole = countSample({ event_id: 'e', contributor_id: 'c', model: 'gpt-4o', occurred_at: '2026-12-01T00:00:00.000Z', reported_tokens: 1, texts });
        const parts = texts.map((t) => countSample({ event_id: 'e', contributor_id: 'c', model: 'gpt-4o', occurred_at: '2026-12-01T00:00:00.000Z', reported_tokens: 1, texts: [t] })?.countedTokens ?? 0);
        expect(whole?.countedTokens ?? 0).toBe(parts.reduce((a, b) => a + b, 0));
      }),
      { numRuns: 50 },
    );
    expect(countSample({ event_id: 'e', contributor_id: 'c', model: 'gpt-4o', occurred_at: '2026-12-01T00:00:00.000Z', reported_tokens: 3, texts: [] })).toBeNull();
  });
});

describe('promptAndReasoningOf', () => {
  it("takes the provider's prompt with the gateway's count, and reasoning tokens only when hidden", async () => {
    const { promptAndReasoningOf } = await import('./usage-audit-counter.js');
    const usage = { prompt_tokens: 130, completion_tokens: 90, reasoning_tokens: 60 };
    expect(promptAndReasoningOf({ reasoning: '', usage }, 100)).toEqual({ reported_prompt_tokens: 130, gateway_prompt_tokens: 100, hidden_reasoning_tokens: 60 });
    expect(promptAndReasoningOf({ reasoning: 'thinking...', usage }, undefined)).toEqual({});
    expect(promptAndReasoningOf({ reasoning: '', usage: { prompt_tokens: 1, completion_tokens: 1 } }, 0)).toEqual({});
    expect(promptAndReasoningOf({ reasoning: '', usage: null }, 100)).toEqual({});
  });
});
