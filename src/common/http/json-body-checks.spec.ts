import fc from 'fast-check';
import { inexactJsonNumber, isExactJsonNumber, JSON_DEPTH_MAX, jsonBodyProblem, mayHoldUnstorableText } from './json-body-checks.js';

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

// Issue 14 item 9: a number beyond double precision was stored and hashed rounded, so two payloads
// differing only there replayed as 200 instead of 409.
describe('inexactJsonNumber', () => {
  it.each([
    ['{"metadata":{"n":9007199254740993}}', '9007199254740993'],
    ['{"a":[1, 100.00000000000000001]}', '100.00000000000000001'],
    ['{"a":1e400}', '1e400'],
    ['{"a":-1E-400}', '-1E-400'],
    ['{"a": 123456789012345678}', '123456789012345678'],
  ])('finds the inexact number of %s', (text, number) => {
    expect(inexactJsonNumber(text)).toBe(number);
  });

  it.each([
    '{"a":9007199254740992,"b":0.1,"c":1.0,"d":1e5,"e":0.30000000000000004,"f":-0,"g":1.5e300}',
    '{"id":"12345678901234567890123","hex":"4e5a:1e400,123456789012345678","k\\":1e400":1}',
    '{"usage":{"prompt_tokens":1200,"completion_tokens":350},"occurred_at":"2026-11-29T10:00:00.123456Z"}',
  ])('accepts numbers JSON.parse keeps, and digits inside strings: %s', (text) => {
    expect(inexactJsonNumber(text)).toBeNull();
  });

  it('agrees with a round trip for any double and any generated decimal literal', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => isExactJsonNumber(JSON.stringify(d))));
    const literal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,24})$/), fc.option(fc.stringMatching(/^\d{1,20}$/)), fc.option(fc.integer({ min: -400, max: 400 })))
      .map(([neg, whole, fraction, exponent]) => `${neg ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `e${exponent}`}`);
    fc.assert(
      fc.property(literal, (text) => {
        const exact = isExactJsonNumber(text);
        const parsed = JSON.parse(text) as number;
        // Exact means: the value written equals the value of the double's own shortest text.
        const roundTrip = Number.isFinite(parsed) && BigIntDecimal(String(parsed)) === BigIntDecimal(text);
        return exact === roundTrip;
      }),
      { numRuns: 3000 },
    );
  });
});

/** An independent exact comparison key of a decimal literal: a normalized rational m * 10^e. */
function BigIntDecimal(text: string): string {
  const [mantissa, exponentText = '0'] = text.toLowerCase().split('e');
  const negative = mantissa!.startsWith('-');
  const [whole, fraction = ''] = mantissa!.replace('-', '').split('.');
  let m = BigInt(whole! + fraction);
  let e = Number(exponentText) - fraction.length;
  if (m === 0n) return '0';
  while (m % 10n === 0n) {
    m /= 10n;
    e += 1;
  }
  return `${negative ? '-' : ''}${m}e${e}`;
}
