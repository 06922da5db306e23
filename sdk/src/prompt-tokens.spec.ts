import fc from 'fast-check';
import { countPromptTokens, countRequestPromptTokens } from './prompt-tokens.js';

describe('countRequestPromptTokens', () => {
  const text = fc.string({ minLength: 1, maxLength: 200 });

  it('counts the same conversation alike in every format (text as a string or as text parts/blocks)', () => {
    fc.assert(
      fc.property(text, text, (system, user) => {
        const chat = countPromptTokens({ model: 'gpt-4o', messages: [{ role: 'system', content: system }, { role: 'user', content: user }] });
        expect(countRequestPromptTokens('openai-chat', { messages: [{ role: 'system', content: [{ type: 'text', text: system }] }, { role: 'user', content: user }] }, 'gpt-4o')).toBe(chat);
        expect(countRequestPromptTokens('openai-responses', { instructions: system, input: [{ role: 'user', content: [{ type: 'input_text', text: user }] }] }, 'gpt-4o')).toBe(
          countPromptTokens({ model: 'gpt-4o', messages: [{ role: 'developer', content: system }, { role: 'user', content: user }] }),
        );
        expect(countRequestPromptTokens('anthropic-messages', { system: [{ type: 'text', text: system }], messages: [{ role: 'user', content: user }] }, 'gpt-4o')).toBe(chat);
        expect(countRequestPromptTokens('gemini', { systemInstruction: { parts: [{ text: system }] }, contents: [{ role: 'user', parts: [{ text: user }] }] }, 'gpt-4o')).toBe(chat);
      }),
      { numRuns: 50 },
    );
  });

  it('never falls when a message is added, in any format', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), text, (texts, extra) => {
        const anthropic = (all: string[]) => countRequestPromptTokens('anthropic-messages', { messages: all.map((content) => ({ role: 'user', content })) }, 'claude-sonnet-4-5');
        const gemini = (all: string[]) => countRequestPromptTokens('gemini', { contents: all.map((t) => ({ role: 'user', parts: [{ text: t }] })) }, 'gemini-2.5-flash');
        const responses = (all: string[]) => countRequestPromptTokens('openai-responses', { input: all.map((content) => ({ role: 'user', content })) }, 'gpt-4o');
        for (const count of [anthropic, gemini, responses]) expect(count([...texts, extra])).toBeGreaterThan(count(texts));
      }),
      { numRuns: 50 },
    );
  });

  it('counts tool calls and results, and a Responses string input', () => {
    const withTool = countRequestPromptTokens('anthropic-messages', { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'weather', input: { city: 'Rome' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'sunny, 21 degrees' }] }] }, 'x');
    const without = countRequestPromptTokens('anthropic-messages', { messages: [{ role: 'assistant', content: [] }, { role: 'user', content: [] }] }, 'x');
    expect(withTool).toBeGreaterThan(without + 5);
    expect(countRequestPromptTokens('gemini', { contents: [{ role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Rome' } } }] }] }, 'x')).toBeGreaterThan(7);
    expect(countRequestPromptTokens('openai-responses', { input: 'Hello there' }, 'gpt-4o')).toBe(countPromptTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] }));
    expect(countPromptTokens({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test' })).toBeGreaterThan(3);
    expect(countRequestPromptTokens('gemini', {}, 'x')).toBe(0);
  });
});
