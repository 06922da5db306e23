import { tokenUsageOf, usageEventSchema } from './usage.schemas.js';

const event = (metadata: unknown) => ({
  event_id: 'e1',
  user_id: 'u1',
  contributor_id: 'c1',
  model: 'openai/gpt-4o',
  usage: { prompt_tokens: 1, completion_tokens: 1 },
  metadata,
});

describe('usage event metadata', () => {
  it('accepts small JSON objects', () => {
    expect(usageEventSchema.safeParse(event({ stream_id: 's-1', tags: ['a', { b: 1 }], emoji: '😀' })).success).toBe(true);
  });

  it('refuses, without throwing, metadata nested 10,000 levels deep (JSON.stringify used to overflow: 500)', () => {
    const deep = JSON.parse(`{"k":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) as unknown;
    const result = usageEventSchema.safeParse(event(deep));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/metadata nested deeper than/);
  });

  it('refuses text Postgres cannot store (queue jobs skip the HTTP body checks)', () => {
    expect(usageEventSchema.safeParse(event({ k: 'a\u0000b' })).success).toBe(false);
    expect(usageEventSchema.safeParse(event({ k: '\ud800' })).success).toBe(false);
  });

  it('still caps the size at 4096 bytes of JSON', () => {
    expect(usageEventSchema.safeParse(event({ k: 'x'.repeat(5000) })).error?.issues[0]?.message).toMatch(/at most 4096 bytes/);
  });
});

describe('usage kinds and price_variant (REST, batch and the queue share this schema)', () => {
  const withUsage = (usage: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...event(undefined), usage, ...extra });

  it('accepts every kind of pricing.md and a variant; absent kinds are 0 in the pricing usage', () => {
    const parsed = usageEventSchema.parse(
      withUsage(
        { prompt_tokens: 100, completion_tokens: 50, cached_tokens: 30, cache_write_5m_tokens: 10, cache_write_1h_tokens: 5, prompt_audio_tokens: 20, cached_audio_tokens: 10, prompt_image_tokens: 5, reasoning_tokens: 10, completion_audio_tokens: 10, completion_image_tokens: 10, web_search_calls: 2 },
        { price_variant: 'flex' },
      ),
    );
    expect(parsed.price_variant).toBe('flex');
    expect(tokenUsageOf(usageEventSchema.parse(withUsage({ prompt_tokens: 1, completion_tokens: 1 })).usage)).toEqual({
      promptTokens: 1, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0,
      promptAudioTokens: 0, cachedAudioTokens: 0, promptImageTokens: 0, completionAudioTokens: 0, completionImageTokens: 0, webSearchCalls: 0,
    });
  });

  it.each([
    [{ prompt_tokens: 10, completion_tokens: 1, cached_tokens: 5, cache_write_1h_tokens: 6 }, 'cache_write_1h_tokens'],
    [{ prompt_tokens: 10, completion_tokens: 1, prompt_image_tokens: 11 }, 'prompt_image_tokens'],
    [{ prompt_tokens: 10, completion_tokens: 1, cached_tokens: 1, prompt_audio_tokens: 5, cached_audio_tokens: 2 }, 'cached_audio_tokens'],
    [{ prompt_tokens: 10, completion_tokens: 4, reasoning_tokens: 2, completion_audio_tokens: 3 }, 'completion_audio_tokens'],
    [{ prompt_tokens: 10, completion_tokens: 1, web_search_calls: -1 }, 'web_search_calls'],
    [{ prompt_tokens: 10, completion_tokens: 1, cache_write_5m_tokens: 1.5 }, 'cache_write_5m_tokens'],
  ])('refuses %j naming usage.%s', (usage, field) => {
    const result = usageEventSchema.safeParse(withUsage(usage));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(`usage.${field}`);
  });

  it('refuses a variant outside the label pattern', () => {
    const result = usageEventSchema.safeParse(withUsage({ prompt_tokens: 1, completion_tokens: 1 }, { price_variant: 'Flex' }));
    expect(result.error?.issues[0]?.path).toEqual(['price_variant']);
  });
});
