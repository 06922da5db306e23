import fc from 'fast-check';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import {
  countTextTokens,
  encodingForModel,
  estimateCompletionTokens,
  estimateCompletionTokensYielding,
  loadedTokenEncodings,
  normalizeModelName,
  TOKEN_SEGMENT_CHARS_MAX,
  TOKEN_YIELD_EVERY_CHARS,
  tokenSegments,
} from './token-estimator.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

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

describe('token estimator: bounded segments (issue 14 item 6: a long run of letters was quadratic)', () => {
  const alphabet = fc.constantFrom(...'aZé中\u0301 \n\t\r1.,\'"-_(){}<|>=!?/\\ '.split(''), ' ', ' ', 'ab', 'The', 'dog', '\'s', "'re", '😀', 'ü');
  const text = fc.array(alphabet, { maxLength: 120 }).map((parts) => parts.join(''));
  const whole = (t: string, encoding: 'o200k_base' | 'cl100k_base') => (encoding === 'o200k_base' ? o200k(t, PLAIN) : cl100k(t, PLAIN));

  it('a clean cut (before a space between a non-space and a letter) never changes the count, in either encoding', () => {
    fc.assert(
      fc.property(text, text, fc.constantFrom('o200k_base' as const, 'cl100k_base' as const), (left, right, encoding) => {
        const joined = `${left}x ${right.length > 0 && /\p{L}/u.test(right[0]!) ? right : `b${right}`}`;
        const at = left.length + 1;
        return whole(joined.slice(0, at), encoding) + whole(joined.slice(at), encoding) === whole(joined, encoding);
      }),
      { numRuns: 3000, seed: 20261201 },
    );
  });

  it('segments cover the text in order, each at most the limit, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 400 }).map((p) => p.join('')), fc.integer({ min: 2, max: 64 }), (t, charsMax) => {
        const segments = [...tokenSegments(t, charsMax)];
        if (segments.join('') !== t) return false;
        return segments.every((s) => s.length >= 1 && s.length <= charsMax && !/^[\uDC00-\uDFFF]/.test(s) && !/[\uD800-\uDBFF]$/.test(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts ordinary text exactly as the whole text: prose and code are cut only at clean cuts', () => {
    const words = fc.array(fc.oneof(fc.stringMatching(/^[a-zA-Zé]{1,12}$/), fc.constantFrom('1999', 'x=1;', '(a, b)', '\n', '"q"', "it's", '—')), { minLength: 1, maxLength: 400 });
    fc.assert(
      fc.property(words, fc.constantFrom('o200k_base' as const, 'cl100k_base' as const), (list, encoding) => {
        const t = list.join(' ');
        return countTextTokens(t, encoding) === whole(t, encoding);
      }),
      { numRuns: 300, seed: 7 },
    );
    const prose = 'The quick brown fox jumps over the lazy dog, and then it naps. '.repeat(2000);
    expect(countTextTokens(prose, 'o200k_base')).toBe(whole(prose, 'o200k_base'));
  });

  it('never hands the tokenizer more than TOKEN_SEGMENT_CHARS_MAX characters of the worst case (one run of letters, CJK, punctuation, spaces)', () => {
    for (const worst of ['a'.repeat(100_000), '中'.repeat(50_000), '!'.repeat(50_000), ' '.repeat(50_000), '😀'.repeat(30_000)]) {
      const segments = [...tokenSegments(worst)];
      expect(Math.max(...segments.map((s) => s.length))).toBeLessThanOrEqual(TOKEN_SEGMENT_CHARS_MAX);
      expect(segments.length).toBeLessThanOrEqual(Math.ceil(worst.length / (TOKEN_SEGMENT_CHARS_MAX - 1)));
    }
    // 100,000 letters: cut into 512-letter runs; the estimate stays within a token per cut of the whole count (12,500).
    expect(countTextTokens('a'.repeat(100_000), 'cl100k_base')).toBeGreaterThanOrEqual(12_500);
    expect(countTextTokens('a'.repeat(100_000), 'cl100k_base')).toBeLessThanOrEqual(12_500 + Math.ceil(100_000 / TOKEN_SEGMENT_CHARS_MAX));
  });

  it('estimateCompletionTokensYielding gives the same count and lets the event loop run between slices of the worst case', async () => {
    const content = 'a'.repeat(2 * 1024 * 1024);
    let turns = 0;
    let running = true;
    const tick = () => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const estimate = await estimateCompletionTokensYielding({ model: 'gpt-4o', content, toolCalls: [{ name: 'f', arguments_raw: 'b'.repeat(100_000) }] });
    running = false;
    expect(estimate).toEqual(estimateCompletionTokens({ model: 'gpt-4o', content, toolCalls: [{ name: 'f', arguments_raw: 'b'.repeat(100_000) }] }));
    // One turn of the loop per TOKEN_YIELD_EVERY_CHARS tokenized, at least: other work ran meanwhile.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(content.length / TOKEN_YIELD_EVERY_CHARS));
  });
});
