import { JSON_DEPTH_MAX, jsonBodyProblem, mayHoldUnstorableText } from './json-body-checks.js';

const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`) as unknown;

describe('jsonBodyProblem', () => {
  it('accepts ordinary bodies, including emoji (surrogate pairs) and nesting up to the limit', () => {
    expect(jsonBodyProblem({ name: 'key 😀 ü', events: [{ usage: { prompt_tokens: 1 } }] })).toBeNull();
    expect(jsonBodyProblem(nested(JSON_DEPTH_MAX))).toBeNull();
    expect(jsonBodyProblem(undefined)).toBeNull();
  });

  it('refuses nesting past the limit without recursing (100,000 levels)', () => {
    expect(jsonBodyProblem(nested(JSON_DEPTH_MAX + 1))).toEqual({ field: expect.any(String), message: `nested deeper than ${JSON_DEPTH_MAX} levels` });
    expect(jsonBodyProblem({ metadata: { k: nested(100_000) } })?.message).toMatch(/nested deeper/);
  });

  it('refuses NUL and lone surrogates in values and in field names, naming the field', () => {
    expect(jsonBodyProblem({ reason: 'a\u0000b' })).toEqual({ field: 'reason', message: 'must be valid Unicode text without NUL characters' });
    expect(jsonBodyProblem({ metadata: { k: ['ok', '\ud800'] } })?.field).toBe('metadata.k.1');
    expect(jsonBodyProblem({ x: 'a\udc00' })?.field).toBe('x');
    expect(jsonBodyProblem({ metadata: { '\u0000': 1 } })).toEqual({ field: 'metadata', message: 'field names must be valid Unicode text without NUL characters' });
  });
});

describe('mayHoldUnstorableText', () => {
  const may = (text: string) => mayHoldUnstorableText(Buffer.from(text));

  it('flags \\u0000 and \\uD800-\\uDFFF escapes, not escaped backslashes or other escapes', () => {
    expect(may('{"a":"\\u0000"}')).toBe(true);
    expect(may('{"a":"\\uD800"}')).toBe(true);
    expect(may('{"a":"\\udfff"}')).toBe(true);
    expect(may('{"\\u0000":1}')).toBe(true);
    expect(may('{"a":"\\\\\\u0000"}')).toBe(true);
    expect(may('{"a":"\\\\u0000"}')).toBe(false);
    expect(may('{"a":"\\u00e9\\u20ac\\n"}')).toBe(false);
    expect(may('{"a":"😀 ü"}')).toBe(false);
  });

  it('never misses a body jsonBodyProblem refuses for its text (property)', async () => {
    const { default: fc } = await import('fast-check');
    const unit = fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udc00', '😀', 'a', '\\', '"'), fc.string({ unit: 'binary', maxLength: 1 }));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: unit }), (value) => {
        const text = JSON.stringify(value);
        const problem = jsonBodyProblem(JSON.parse(text));
        if (problem && !problem.message.startsWith('nested')) expect(mayHoldUnstorableText(Buffer.from(text))).toBe(true);
      }),
      { seed: 11, numRuns: 1000 },
    );
  });
});
