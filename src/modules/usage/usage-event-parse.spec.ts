import fc from 'fast-check';
import { parseUsageEvent, plainMetadata, plainOccurredAt, plainUsageEvent, ProvenUsageEvent } from './usage-event-parse.js';
import { normalizeEvent } from './usage-event.js';
import { METADATA_BYTES_MAX, usageEventSchema } from './usage.schemas.js';

const base = () => ({
  event_id: 'evt-1',
  user_id: 'user-1',
  contributor_id: 'contrib-1',
  model: 'openai/gpt-4o',
  usage: { prompt_tokens: 100, completion_tokens: 20 } as Record<string, unknown>,
});

/** The same answer as the schema: same success, same output (values and key order), same issues. */
function expectSameAsSchema(raw: unknown): void {
  const expected = usageEventSchema.safeParse(raw);
  const actual = parseUsageEvent(raw);
  expect(actual.success).toBe(expected.success);
  if (expected.success && actual.success) {
    expect(actual.data).toStrictEqual(expected.data);
    expect(JSON.stringify(actual.data)).toBe(JSON.stringify(expected.data));
    expect(Object.keys(actual.data.usage)).toEqual(Object.keys(expected.data.usage));
  } else {
    expect(actual.error?.issues).toEqual(expected.error?.issues);
  }
}

/** Whatever `plain` proves, `schema` accepts with the same output (identical); `plain` proves at least `provenMin` of 3,000 values. */
function expectProvenOnlyIfAccepted<T>(values: fc.Arbitrary<T>, plain: (raw: unknown) => unknown, schema: { safeParse(raw: unknown): { success: boolean; data?: unknown } }, provenMin: number): void {
  let proven = 0;
  fc.assert(
    fc.property(values, (value) => {
      const output = plain(value);
      if (output === undefined) return;
      proven += 1;
      const parsed = schema.safeParse(value);
      expect(parsed.success && parsed.data).toBe(output);
    }),
    { numRuns: 3000 },
  );
  expect(proven).toBeGreaterThan(provenMin);
}

describe('parseUsageEvent: usageEventSchema without zod for plain bodies', () => {
  it('takes the fast path for the common body and outputs what the schema does (defaults included)', () => {
    const raw = base();
    expect(plainUsageEvent(raw)).toBeDefined();
    expectSameAsSchema(raw);
    expectSameAsSchema({ ...base(), usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 } });
  });

  it('takes it with every optional field and kind, in the schema key order', () => {
    const raw = {
      metadata: { trace: 'abc', n: [1, { x: true }] },
      key_id: 'key-9',
      hold_id: 'hold-1',
      usage: { web_search_calls: 2, prompt_tokens: 100, completion_tokens: 50, cached_tokens: 30, cache_write_5m_tokens: 10, cache_write_1h_tokens: 5, prompt_audio_tokens: 20, cached_audio_tokens: 10, prompt_image_tokens: 5, reasoning_tokens: 10, completion_audio_tokens: 10, completion_image_tokens: 10 },
      price_variant: 'us',
      occurred_at: '2026-12-01T10:00:00.123+02:00',
      model: 'anthropic/claude',
      contributor_id: 'c',
      user_id: 'alice+x@example.com',
      event_id: 'e'.repeat(256),
    };
    expect(plainUsageEvent(raw)).toBeDefined();
    expectSameAsSchema(raw);
  });

  it('checks a toISOString timestamp and flat metadata without their schemas, outputting what they do', () => {
    const raw = { ...base(), occurred_at: '2026-12-01T10:00:00.123Z', metadata: { litellm_model_id: 'dep-1', litellm_response_cost_usd: '0.0012345', n: 1.5, ok: true, none: null } };
    expect(plainOccurredAt(raw.occurred_at)).toBe(raw.occurred_at);
    expect(plainMetadata(raw.metadata)).toBe(raw.metadata);
    expectSameAsSchema(raw);
  });

  it('leaves to the schemas the timestamps and metadata the plain checks cannot prove', () => {
    for (const text of ['2026-02-30T00:00:00.000Z', '2026-12-01T24:00:00.000Z', '2026-12-01T10:00:60.000Z', '0000-06-01T00:00:00.000Z', '2026-12-01T10:00:00Z', '2026-12-01T10:00:00.123+00:00']) {
      expect(plainOccurredAt(text)).toBeUndefined();
      expectSameAsSchema({ ...base(), occurred_at: text });
    }
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]));
    const exactly = { k: 'x'.repeat(METADATA_BYTES_MAX - '{"k":""}'.length) };
    const escaped = { k: '"\\'.repeat(METADATA_BYTES_MAX / 4) };
    for (const metadata of [many, { ['k'.repeat(101)]: 1 }, { '': 1 }, { k: 'José' }, { k: [1] }, { k: {} }, { k: Number.NaN }, { ...exactly, k: `${exactly.k}x` }, escaped, Object.create({ inherited: 1 }) as object]) {
      expect(plainMetadata(metadata)).toBeUndefined();
      expectSameAsSchema({ ...base(), metadata });
    }
    expect(plainMetadata(exactly)).toBe(exactly);
    expectSameAsSchema({ ...base(), metadata: exactly });
    const proto = JSON.parse('{"__proto__":"x","k":1}') as Record<string, unknown>;
    expect(plainMetadata(proto)).toBe(proto);
    expectSameAsSchema({ ...base(), metadata: proto });
  });

  it('proves only timestamps and metadata their schemas accept, with the same output', () => {
    const shape = usageEventSchema.shape;
    const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
    // Real instants from just before year 0 to year 9999 (beyond, toISOString writes six-digit
    // years), and texts of the same form with any digits.
    const instant = fc.oneof(
      fc.integer({ min: Date.UTC(-1, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }).map((ms) => new Date(ms).toISOString()),
      fc.tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3)).map(([y, mo, d, h, mi, s, f]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${f}Z`),
    );
    expectProvenOnlyIfAccepted(instant, plainOccurredAt, shape.occurred_at, 500);
    const flat = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant('x'.repeat(2000)));
    const metadata = fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constant('k'.repeat(100)), fc.constant('k'.repeat(101))), flat, { maxKeys: 36 });
    expectProvenOnlyIfAccepted(metadata, plainMetadata, shape.metadata, 300);
  });

  it.each([
    ['a unicode id (valid, left to the schema)', { ...base(), user_id: 'José' }],
    ['an id of 257 characters', { ...base(), event_id: 'e'.repeat(257) }],
    ['an empty id', { ...base(), contributor_id: '' }],
    ['a control character in an id', { ...base(), event_id: 'a\u0007b' }],
    ['a lone surrogate', { ...base(), user_id: 'a\ud800' }],
    ['a model with a space', { ...base(), model: 'gpt 4' }],
    ['a model of 201 characters', { ...base(), model: 'm'.repeat(201) }],
    ['an unknown key', { ...base(), extra: 1 }],
    ['an unknown usage kind', { ...base(), usage: { prompt_tokens: 1, completion_tokens: 1, video_tokens: 3 } }],
    ['a null count', { ...base(), usage: { prompt_tokens: 1, completion_tokens: 1, cached_tokens: null } }],
    ['a fractional count', { ...base(), usage: { prompt_tokens: 1.5, completion_tokens: 1 } }],
    ['a negative count', { ...base(), usage: { prompt_tokens: -1, completion_tokens: 1 } }],
    ['a count above 2^31-1', { ...base(), usage: { prompt_tokens: 2 ** 31, completion_tokens: 1 } }],
    ['a count as a string', { ...base(), usage: { prompt_tokens: '1', completion_tokens: 1 } }],
    ['cached above prompt', { ...base(), usage: { prompt_tokens: 1, completion_tokens: 1, cached_tokens: 2 } }],
    ['reasoning above completion', { ...base(), usage: { prompt_tokens: 1, completion_tokens: 1, reasoning_tokens: 2 } }],
    ['a missing usage', { event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm' }],
    ['a bad timestamp', { ...base(), occurred_at: '2026-13-01T00:00:00Z' }],
    ['a year 0 timestamp', { ...base(), occurred_at: '0000-01-01T00:00:00Z' }],
    ['a bad variant', { ...base(), price_variant: 'US' }],
    ['a null hold id', { ...base(), hold_id: null }],
    ['metadata that is an array', { ...base(), metadata: [1] }],
    ['metadata over 4096 bytes', { ...base(), metadata: { k: 'x'.repeat(5000) } }],
    ['metadata with a NUL', { ...base(), metadata: { k: 'a\u0000b' } }],
    ['an explicit undefined', { ...base(), key_id: undefined }],
    ['a __proto__ key', JSON.parse('{"event_id":"e","user_id":"u","contributor_id":"c","model":"m","usage":{"prompt_tokens":1,"completion_tokens":1},"__proto__":{"x":1}}') as unknown],
    ['an array', [base()]],
    ['null', null],
    ['a string', 'event'],
  ])('answers as the schema for %s', (_name, raw) => {
    expectSameAsSchema(raw);
  });

  it('answers as the schema for arbitrary bodies near the common shape', () => {
    // Mostly valid values (so the fast path is taken often), with the odd one the rules refuse.
    const mostly = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: other, weight: 1 });
    const id = mostly(fc.stringMatching(/^[\x20-\x7E]{1,20}$/), fc.oneof(fc.string({ maxLength: 260 }), fc.string({ unit: 'grapheme', maxLength: 5 }), fc.constant(''), fc.integer(), fc.constant(null)));
    const small = mostly(fc.integer({ min: 0, max: 40 }), fc.oneof(fc.integer({ min: -2, max: 300 }), fc.constant(2 ** 31), fc.double(), fc.constant(null), fc.constant('7')));
    const big = mostly(fc.integer({ min: 200, max: 2 ** 31 - 1 }), small);
    const rare = <T,>(value: fc.Arbitrary<T>, absentWeight = 2) => fc.oneof({ arbitrary: fc.constant(undefined), weight: absentWeight }, { arbitrary: value, weight: 1 });
    const usage = fc
      .record({
        prompt_tokens: big,
        completion_tokens: big,
        cached_tokens: rare(small),
        reasoning_tokens: rare(small),
        cache_write_5m_tokens: rare(small),
        cached_audio_tokens: rare(small),
        prompt_audio_tokens: rare(small),
        web_search_calls: rare(small),
        other: rare(small, 20),
      })
      .map((raw) => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
    const body = fc
      .record({
        event_id: id,
        user_id: id,
        contributor_id: id,
        model: mostly(fc.constantFrom('openai/gpt-4o', 'm'), fc.oneof(fc.constantFrom('a b', '', 'm'.repeat(201)), fc.string({ maxLength: 8 }))),
        occurred_at: rare(mostly(fc.constantFrom('2026-12-01T00:00:00Z', '2026-12-01T00:00:00.0001+01:00', '2026-12-01T00:00:00.000Z', '2026-02-29T00:00:00.000Z'), fc.oneof(fc.constantFrom('yesterday', '0000-01-01T00:00:00Z'), fc.constant(1)))),
        price_variant: rare(mostly(fc.constantFrom('standard', 'us'), fc.oneof(fc.constantFrom('US', ''), fc.string({ maxLength: 4 })))),
        usage: mostly(usage, fc.constant(null)),
        hold_id: rare(id),
        key_id: rare(id),
        metadata: rare(mostly(fc.oneof(fc.object({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)))), fc.oneof(fc.constant(null), fc.constant([1])))),
        extra: rare(fc.integer(), 20),
      })
      // Absent, not undefined: a body from JSON has no undefined values.
      .map((raw) => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
    let fast = 0;
    fc.assert(
      fc.property(body, (raw) => {
        if (plainUsageEvent(raw) !== undefined) fast += 1;
        expectSameAsSchema(raw);
      }),
      { numRuns: 3000 },
    );
    // The property must exercise the fast path, not only compare the schema with itself.
    expect(fast).toBeGreaterThan(100);
  });
});

describe('ProvenUsageEvent: parts proven without a second parse', () => {
  const mostly = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: other, weight: 1 });
  const id = mostly(fc.stringMatching(/^[\x20-\x7E]{1,20}$/), fc.oneof(fc.string({ maxLength: 260 }), fc.string({ unit: 'grapheme', maxLength: 5 }), fc.constant('')));
  const rare = <T,>(value: fc.Arbitrary<T>, absentWeight = 2) => fc.oneof({ arbitrary: fc.constant(undefined), weight: absentWeight }, { arbitrary: value, weight: 1 });
  const count = mostly(fc.integer({ min: 0, max: 40 }), fc.oneof(fc.integer({ min: -2, max: 300 }), fc.constant(2 ** 31), fc.double(), fc.constant(null)));
  const usage = fc
    .record({ prompt_tokens: mostly(fc.integer({ min: 200, max: 2 ** 31 - 1 }), count), completion_tokens: count, cached_tokens: count, reasoning_tokens: rare(fc.constant(0), 1), web_search_calls: rare(count), other: rare(count, 20) })
    .map((raw) => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
  const metadata = mostly(
    fc.record({ litellm_model_id: id, litellm_response_cost_usd: rare(fc.constantFrom('0.0012345', '1e-7', 'x'.repeat(5000)), 3) }).map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined))),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant([1]))),
  );
  // An instant and its text: mostly its own toISOString(), sometimes another text or an invalid date.
  const time = fc.integer({ min: Date.UTC(-2, 0, 1), max: Date.UTC(10001, 0, 1) }).chain((ms) =>
    mostly(
      fc.constant({ occurredAt: new Date(ms), occurred_at: new Date(ms).toISOString() }),
      fc.oneof(
        fc.constant({ occurredAt: new Date(ms + 1), occurred_at: new Date(ms).toISOString() }),
        fc.constant({ occurredAt: new Date(ms), occurred_at: new Date(ms).toISOString().replace('Z', '+00:00') }),
        fc.constant({ occurredAt: new Date(Number.NaN), occurred_at: new Date(ms).toISOString() }),
      ),
    ),
  );
  const parts = fc.record({
    event_id: id,
    user_id: id,
    contributor_id: id,
    model: mostly(fc.constantFrom('gpt-4o', 'openai/gpt-4o'), fc.constantFrom('a b', '', 'm'.repeat(201), 'José')),
    time,
    price_variant: rare(mostly(fc.constantFrom('flex', 'priority'), fc.constantFrom('US', ''))),
    usage,
    metadata,
  });

  it('proves only bodies the schema accepts, with the same output, and normalizes them to the same event', () => {
    let proven = 0;
    fc.assert(
      fc.property(parts, ({ time: at, ...rest }) => {
        const given = { ...rest, ...at };
        // The body those parts make (absent, not undefined, as in a body from JSON).
        const { occurredAt: _read, ...body } = given;
        if (body.price_variant === undefined) delete body.price_variant;
        const result = ProvenUsageEvent.of(given);
        if (result === undefined) return;
        proven += 1;
        const expected = usageEventSchema.safeParse(body);
        expect(expected.success).toBe(true);
        if (!expected.success) return;
        expect(result.input).toStrictEqual(expected.data);
        expect(JSON.stringify(result.input)).toBe(JSON.stringify(expected.data));
        expect(result.occurredAt.getTime()).toBe(new Date(expected.data.occurred_at!).getTime());
        const now = new Date(Date.UTC(2026, 11, 7));
        expect(normalizeEvent(result.input, { now, source: 'litellm', occurredAt: result.occurredAt })).toStrictEqual(normalizeEvent(expected.data, { now, source: 'litellm' }));
      }),
      { numRuns: 3000 },
    );
    expect(proven).toBeGreaterThan(500);
  });
});
