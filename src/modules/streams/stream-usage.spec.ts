import fc from 'fast-check';
import { reassembleSse } from './sse-reassembler.js';
import { parseUsage, readChunkUsage, serviceTierVariant } from './stream-usage.js';
import { choiceChunk, sseBody, splitAt, toBytes } from './testing/sse-test-helpers.js';

const usage = (prompt: number, completion: number, total: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: total,
});
const parsed = (value: unknown) => parseUsage(value)?.usage ?? null;

describe('parseUsage: provider fields to api.md usage (pricing.md)', () => {
  it('copies cached/reasoning tokens only when sent (0 included) and total_tokens as sent', () => {
    expect(
      parsed({ ...usage(7, 8, 99), prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 4 } }),
    ).toEqual({ ...usage(7, 8, 99), cached_tokens: 0, reasoning_tokens: 4 });
    const plain = parsed({ ...usage(7, 8, 15), prompt_tokens_details: { cached_tokens: null } });
    expect(Object.keys(plain ?? {})).toEqual(['prompt_tokens', 'completion_tokens', 'total_tokens']);
  });

  it('does not require total_tokens (and ignores an invalid one)', () => {
    expect(parsed({ prompt_tokens: 1, completion_tokens: 2 })).toEqual({ prompt_tokens: 1, completion_tokens: 2 });
    expect(parsed({ prompt_tokens: 1, completion_tokens: 2, total_tokens: -3 })).toEqual({ prompt_tokens: 1, completion_tokens: 2 });
  });

  it('is unusable without valid prompt and completion counts', () => {
    const invalid = [
      {},
      { prompt_tokens: 1 },
      usage(-1, 2, 1),
      usage(1.5, 2, 3.5),
      usage(1, Number.MAX_SAFE_INTEGER + 1, 3),
      { prompt_tokens: '1', completion_tokens: 2, total_tokens: 3 },
      { prompt_tokens: 1, input_tokens: 5, output_tokens: 2 }, // prompt_tokens present: no native fallback
      'usage',
      null,
      [usage(1, 1, 2)],
    ];
    for (const value of invalid) expect(parseUsage(value)).toBeNull();
  });

  it('OpenAI: cached, audio in and out, reasoning; other kinds only when non-zero', () => {
    expect(
      parsed({
        ...usage(2100, 900, 3000),
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 600, image_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 700, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      }),
    ).toEqual({ ...usage(2100, 900, 3000), cached_tokens: 1024, reasoning_tokens: 0, prompt_audio_tokens: 600, completion_audio_tokens: 700 });
  });

  it('cached audio from prompt_tokens_details.cached_tokens_details.audio_tokens', () => {
    expect(
      parsed({ ...usage(100, 1, 101), prompt_tokens_details: { cached_tokens: 64, audio_tokens: 80, cached_tokens_details: { text_tokens: 32, audio_tokens: 32 } } }),
    ).toMatchObject({ cached_tokens: 64, prompt_audio_tokens: 80, cached_audio_tokens: 32 });
  });

  it('cached: first of prompt_tokens_details.cached_tokens, prompt_cache_hit_tokens, cache_read_input_tokens, cached_tokens', () => {
    expect(parsed({ ...usage(10, 1, 11), prompt_cache_hit_tokens: 6, prompt_cache_miss_tokens: 4 })?.cached_tokens).toBe(6);
    expect(parsed({ ...usage(10, 1, 11), prompt_tokens_details: { cached_tokens: 5 }, prompt_cache_hit_tokens: 6 })?.cached_tokens).toBe(5);
    expect(parsed({ ...usage(10, 1, 11), prompt_tokens_details: { cached_tokens: null }, prompt_cache_hit_tokens: 6 })?.cached_tokens).toBe(6);
    expect(parsed({ ...usage(10, 1, 11), cache_read_input_tokens: 7 })?.cached_tokens).toBe(7);
    expect(parsed({ ...usage(10, 1, 11), cached_tokens: 8 })?.cached_tokens).toBe(8);
  });

  it('cache write 5m: OpenRouter cache_write_tokens, cache_creation_tokens or cache_creation_input_tokens, minus the 1h part', () => {
    expect(parsed({ ...usage(300, 1, 301), prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100 } })).toMatchObject({ cache_write_5m_tokens: 100 });
    expect(parsed({ ...usage(300, 1, 301), prompt_tokens_details: { cache_creation_tokens: 90 } })).toMatchObject({ cache_write_5m_tokens: 90 });
    // Alibaba DashScope (Model Studio, OpenAI-compatible): the write count inside prompt_tokens_details.
    const dashScope = parsed({ ...usage(2048, 30, 2078), prompt_tokens_details: { cached_tokens: 0, cache_creation_input_tokens: 1500, cache_type: 'ephemeral' } });
    expect(dashScope).toMatchObject({ prompt_tokens: 2048, cache_write_5m_tokens: 1500, cached_tokens: 0 });
    const liteLlm = parsed({
      ...usage(5000, 20, 5020),
      prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 3000, cache_creation_token_details: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 } },
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 1000,
    });
    expect(liteLlm).toMatchObject({ cached_tokens: 1000, cache_write_5m_tokens: 1000, cache_write_1h_tokens: 2000 });
    const anthropicShape = parsed({ ...usage(5000, 20, 5020), cache_creation_input_tokens: 3000, cache_creation: { ephemeral_5m_input_tokens: 2500, ephemeral_1h_input_tokens: 500 } });
    expect(anthropicShape).toMatchObject({ cache_write_5m_tokens: 2500, cache_write_1h_tokens: 500 });
  });

  it('a 1h part above the write total keeps the 1h count and a 5m part of 0; no total uses the breakdown', () => {
    const over = parsed({ ...usage(900, 1, 901), cache_creation_input_tokens: 100, cache_creation: { ephemeral_1h_input_tokens: 400 } });
    expect(over).toMatchObject({ cache_write_1h_tokens: 400 });
    expect(over).not.toHaveProperty('cache_write_5m_tokens');
    expect(parsed({ ...usage(900, 1, 901), cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 40 } })).toMatchObject({
      cache_write_5m_tokens: 30,
      cache_write_1h_tokens: 40,
    });
  });

  it('Anthropic-native usage: the cache reads and writes are added to input_tokens', () => {
    const result = parseUsage({
      input_tokens: 50,
      output_tokens: 300,
      cache_creation_input_tokens: 4000,
      cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 3000 },
      server_tool_use: { web_search_requests: 2 },
      service_tier: 'standard',
    });
    expect(result).toEqual({
      usage: { prompt_tokens: 6050, completion_tokens: 300, cached_tokens: 2000, cache_write_5m_tokens: 1000, cache_write_1h_tokens: 3000, web_search_calls: 2 },
      serviceTier: 'standard',
    });
  });

  it('xAI: reasoning counted outside completion (total = prompt + completion + reasoning) is added to completion', () => {
    expect(parsed({ ...usage(30, 12, 342), completion_tokens_details: { reasoning_tokens: 300 } })).toEqual({
      ...usage(30, 312, 342),
      reasoning_tokens: 300,
    });
    // OpenAI counts it inside: total = prompt + completion, completion stays.
    expect(parsed({ ...usage(30, 312, 342), completion_tokens_details: { reasoning_tokens: 300 } })?.completion_tokens).toBe(312);
    // Without a total there is no evidence: completion stays as sent.
    expect(parsed({ prompt_tokens: 30, completion_tokens: 12, completion_tokens_details: { reasoning_tokens: 300 } })?.completion_tokens).toBe(12);
  });

  it('image tokens in and out (Gemini, xAI) and web search calls', () => {
    expect(
      parsed({
        ...usage(1290, 1300, 2590),
        prompt_tokens_details: { text_tokens: 32, image_tokens: 1258 },
        completion_tokens_details: { image_tokens: 1290 },
        server_tool_use: { web_search_requests: 0 },
      }),
    ).toEqual({ ...usage(1290, 1300, 2590), prompt_image_tokens: 1258, completion_image_tokens: 1290 });
  });
});

describe('readChunkUsage: which usage of a chunk', () => {
  it('top-level usage, else x_groq.usage when it is absent, null or unusable', () => {
    const groq = { x_groq: { id: 'req_1', usage: { ...usage(5, 6, 11), queue_time: 0.01 } } };
    expect(readChunkUsage({ choices: [], ...groq })?.usage).toEqual(usage(5, 6, 11));
    expect(readChunkUsage({ choices: [], usage: null, ...groq })?.usage).toEqual(usage(5, 6, 11));
    expect(readChunkUsage({ choices: [], usage: 'x', ...groq })?.usage).toEqual(usage(5, 6, 11));
    expect(readChunkUsage({ choices: [], usage: { prompt_tokens: null }, ...groq })?.usage).toEqual(usage(5, 6, 11));
    expect(readChunkUsage({ choices: [], usage: usage(1, 1, 2), ...groq })?.usage).toEqual(usage(1, 1, 2));
  });

  it('else the usage of the index-0 choice (Moonshot), not of another choice', () => {
    const moonshot = { choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { ...usage(19, 13, 32), cached_tokens: 16 } }] };
    expect(readChunkUsage(moonshot)?.usage).toEqual({ ...usage(19, 13, 32), cached_tokens: 16 });
    expect(readChunkUsage({ choices: [{ index: 1, delta: {}, usage: usage(1, 1, 2) }] })).toBeNull();
    expect(readChunkUsage({ choices: [{ index: 1, usage: usage(1, 1, 2) }, { index: 0, usage: usage(3, 3, 6) }] })?.usage).toEqual(usage(3, 3, 6));
    expect(readChunkUsage({ usage: usage(7, 7, 14), choices: [{ index: 0, usage: usage(3, 3, 6) }] })?.usage).toEqual(usage(7, 7, 14));
  });
});

describe('serviceTierVariant', () => {
  it.each([
    ['default', 'standard'],
    ['auto', 'standard'],
    ['on_demand', 'standard'],
    ['standard', 'standard'],
    ['flex', 'flex'],
    ['Priority', 'priority'],
    ['batch', 'batch'],
  ])('%s -> %s', (tier, variant) => {
    expect(serviceTierVariant(tier)).toBe(variant);
  });
});

// --- properties ---------------------------------------------------------------------------------

const count = fc.integer({ min: 0, max: 1_000_000 });
/** A valid provider usage object in one of the conventions, with what it must parse to. */
const providerUsage = fc.oneof(
  fc.record({ p: count, c: count, cached: count }).map(({ p, c, cached }) => ({
    raw: { ...usage(p, c, p + c), prompt_tokens_details: { cached_tokens: cached } },
    expected: { ...usage(p, c, p + c), cached_tokens: cached },
  })),
  fc.record({ p: count, c: count, hit: count }).map(({ p, c, hit }) => ({
    raw: { ...usage(p, c, p + c), prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: p },
    expected: { ...usage(p, c, p + c), cached_tokens: hit },
  })),
  fc.record({ input: count, out: count, read: count, w5: count, w1: count }).map(({ input, out, read, w5, w1 }) => ({
    raw: { input_tokens: input, output_tokens: out, cache_read_input_tokens: read, cache_creation_input_tokens: w5 + w1, cache_creation: { ephemeral_1h_input_tokens: w1 } },
    expected: {
      prompt_tokens: input + read + w5 + w1,
      completion_tokens: out,
      cached_tokens: read,
      ...(w5 > 0 ? { cache_write_5m_tokens: w5 } : {}),
      ...(w1 > 0 ? { cache_write_1h_tokens: w1 } : {}),
    },
  })),
  fc.record({ p: count, c: count, r: fc.integer({ min: 1, max: 100_000 }) }).map(({ p, c, r }) => ({
    raw: { ...usage(p, c, p + c + r), completion_tokens_details: { reasoning_tokens: r } },
    expected: { ...usage(p, c + r, p + c + r), reasoning_tokens: r },
  })),
);
/** Where the usage sits in its chunk: top-level, Groq's x_groq, Moonshot's choice. */
const placement = fc.constantFrom('top', 'groq', 'choice', 'groq-after-null');
function chunkWith(raw: unknown, where: string, content: string): unknown {
  if (where === 'top') return choiceChunk({ content }, { usage: raw });
  if (where === 'groq') return choiceChunk({ content }, { x_groq: { id: 'req', usage: raw } });
  if (where === 'groq-after-null') return choiceChunk({ content }, { usage: null, x_groq: { usage: raw } });
  return { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null, usage: raw }] };
}
const unusable = fc.constantFrom<unknown>(null, 'n/a', { prompt_tokens: -1, completion_tokens: 2 }, { total_tokens: 4 }, { prompt_tokens: 1.5, completion_tokens: 1 });
const step = fc.oneof(
  fc.record({ kind: fc.constant('valid' as const), value: providerUsage, where: placement, content: fc.string({ maxLength: 6 }) }),
  fc.record({ kind: fc.constant('unusable' as const), value: unusable, where: placement, content: fc.string({ maxLength: 6 }) }),
);

describe('properties: usage is last-wins, never summed, and independent of chunking', () => {
  it('the result is the last usable usage of the stream, wherever each chunk carries it', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
        const chunks = steps.map((s) => chunkWith(s.kind === 'valid' ? s.value.raw : s.value, s.where, s.content));
        const lastValid = [...steps].reverse().find((s) => s.kind === 'valid');
        const expected = lastValid?.kind === 'valid' ? lastValid.value.expected : null;
        expect(reassembleSse(sseBody(chunks)).usage).toEqual(expected);
      }),
    );
  });

  it('splitting the body anywhere gives the same usage and service tier', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('default', 'flex', 'priority', undefined),
        fc.array(fc.nat(), { maxLength: 40 }),
        (steps, tier, cuts) => {
          const chunks = steps.map((s) => {
            const chunk = chunkWith(s.kind === 'valid' ? s.value.raw : s.value, s.where, s.content) as Record<string, unknown>;
            return tier === undefined ? chunk : { ...chunk, service_tier: tier };
          });
          const body = toBytes(sseBody(chunks));
          const whole = reassembleSse(body);
          const split = reassembleSse(splitAt(body, cuts.map((c) => c % (body.length + 1))));
          expect(split.usage).toEqual(whole.usage);
          expect(split.service_tier).toEqual(whole.service_tier);
          expect(whole.service_tier).toBe(tier ?? null);
        },
      ),
    );
  });
});
