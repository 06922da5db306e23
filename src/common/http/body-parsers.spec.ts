import { JSON_DEPTH_MAX, jsonBodyProblem } from './body-parsers.js';

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
