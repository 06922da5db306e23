import { usageEventSchema } from './usage.schemas.js';

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
