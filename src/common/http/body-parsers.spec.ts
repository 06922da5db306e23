import { DomainError } from '../errors/domain-error.js';
import { isJsonMediaType, mediaType, parseJsonBody } from './body-parsers.js';

function refusal(bytes: Buffer): { code: string; details?: unknown } {
  try {
    parseJsonBody(bytes);
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseJsonBody', () => {
  it('parses a JSON object or array', () => {
    expect(parseJsonBody(Buffer.from(' {"a":[1,"x"]}'))).toEqual({ a: [1, 'x'] });
    expect(parseJsonBody(Buffer.from('[true]'))).toEqual([true]);
  });

  it('reads an empty body as an empty object, as Express did', () => {
    expect(parseJsonBody(Buffer.from('  \n'))).toEqual({});
  });

  it('refuses a top level that is not an object or array (strict JSON), and malformed JSON', () => {
    for (const text of ['1', '"text"', 'null', '{"a":', '{a:1}']) {
      expect(refusal(Buffer.from(text))).toEqual({ code: 'validation_failed', details: [{ field: '(body)', message: 'malformed JSON' }] });
    }
  });

  it('refuses bytes that are not UTF-8 as an unsupported media type', () => {
    expect(refusal(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])).code).toBe('unsupported_media_type');
  });

  it('refuses text Postgres cannot store, naming the field', () => {
    const nul = refusal(Buffer.from('{"user_id":"a\\u0000b"}'));
    expect(nul.code).toBe('validation_failed');
    expect(JSON.stringify(nul.details)).toContain('user_id');
    expect(refusal(Buffer.from('{"x":"\\ud800"}')).code).toBe('validation_failed');
    expect(parseJsonBody(Buffer.from('{"x":"\\\\u0000"}'))).toEqual({ x: '\\u0000' });
  });

  // A batch's entries check their own text: one NUL must reject that entry, not the body (api.md "Ids").
  it('leaves text to a batch route\'s entries, still refusing nesting past the limit', () => {
    expect(parseJsonBody(Buffer.from('{"events":[{"event_id":"a\\u0000b"},{"event_id":"\\ud800"}]}'), { textPerEntry: true })).toEqual({ events: [{ event_id: 'a\u0000b' }, { event_id: '\ud800' }] });
    const deep = `{"events":[${'['.repeat(80)}"\\u0000"${']'.repeat(80)}]}`;
    expect(() => parseJsonBody(Buffer.from(deep), { textPerEntry: true })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });
});

describe('media types', () => {
  it('takes the type without parameters, case-insensitively', () => {
    expect(mediaType('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(mediaType(undefined)).toBe('');
  });

  it('accepts application/json and +json types only', () => {
    expect(isJsonMediaType('application/json')).toBe(true);
    expect(isJsonMediaType('application/merge-patch+json')).toBe(true);
    expect(isJsonMediaType('text/plain')).toBe(false);
    expect(isJsonMediaType('')).toBe(false);
  });
});
