import {
  countTextTokens,
  encodingForModel,
  estimateCompletionTokens,
  loadedTokenEncodings,
  normalizeModelName,
} from './token-estimator.js';

describe('token estimator', () => {
  it('loads no encoding at import time', () => {
    expect(loadedTokenEncodings()).toEqual([]);
    expect(countTextTokens('', 'o200k_base')).toBe(0);
    expect(loadedTokenEncodings()).toEqual([]);
  });

  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-4.5-preview', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['gpt-5.1-codex', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o1-mini', 'o200k_base'],
    ['o3-pro', 'o200k_base'],
    ['o4-mini-2025-04-16', 'o200k_base'],
    ['gpt-oss-120b', 'o200k_base'],
    ['openai/gpt-4o', 'o200k_base'],
    ['OpenAI/GPT-4.1-mini', 'o200k_base'],
    ['ft:gpt-4o-mini-2024-07-18:org::abc', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['openai/gpt-4-0613', 'cl100k_base'],
    ['anthropic/claude-sonnet-4', 'cl100k_base'],
    ['accounts/fireworks/models/kimi-k2-instruct', 'cl100k_base'],
    ['olmo-2', 'cl100k_base'],
    ['o10', 'cl100k_base'],
    ['gpt-50', 'cl100k_base'],
    ['', 'cl100k_base'],
    [null, 'cl100k_base'],
  ])('model %j uses %s', (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
  });

  it('strips a provider/ prefix', () => {
    expect(normalizeModelName(' openrouter/openai/GPT-5 ')).toBe('gpt-5');
  });

  it.each([
    ['hello world', 2, 2],
    ['Hello, world!', 4, 4],
    ['The quick brown fox jumps over the lazy dog.', 10, 10],
    ['你好，世界！こんにちは', 5, 8],
    ['{"location":"San Francisco, CA","unit":"celsius"}', 13, 13],
  ])('counts %j as %i (o200k) / %i (cl100k) tokens', (text, o200k, cl100k) => {
    expect(countTextTokens(text, 'o200k_base')).toBe(o200k);
    expect(countTextTokens(text, 'cl100k_base')).toBe(cl100k);
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countTextTokens('<|endoftext|>', 'o200k_base')).toBe(7);
    expect(countTextTokens('<|endoftext|>', 'cl100k_base')).toBe(7);
  });

  it('sums content and each tool call name and raw arguments', () => {
    const estimate = estimateCompletionTokens({
      model: 'openai/gpt-4o',
      content: 'hello world',
      toolCalls: [{ name: 'get_weather', arguments_raw: '{"location":"San Francisco, CA","unit":"celsius"}' }],
    });
    expect(estimate).toEqual({ tokens: 2 + 2 + 13, encoding: 'o200k_base' });
    expect(estimateCompletionTokens({ model: 'claude-3-haiku', content: '你好，世界！こんにちは' })).toEqual({
      tokens: 8,
      encoding: 'cl100k_base',
    });
    expect(estimateCompletionTokens({ model: 'gpt-4o', content: '', toolCalls: [] }).tokens).toBe(0);
    expect(loadedTokenEncodings().sort()).toEqual(['cl100k_base', 'o200k_base']);
  });
});
