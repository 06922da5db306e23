import fc from 'fast-check';
import { arrayLiteral, plainArrayLiteral, quotedArrayLiteral } from './sql.js';

describe('array literals', () => {
  it('arrayLiteral is the element-by-element quoting, whatever the texts and nulls', () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('"', '\\', 'a"b', 'c\\d', '', 'NULL', ' x ', '{}', ','));
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.constant(null)), { maxLength: 40 }), (elements) => {
        expect(arrayLiteral(elements)).toBe(quotedArrayLiteral(elements));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the three shapes of a column as Postgres reads them', () => {
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a', 'b c'])).toBe('{"a","b c"}');
    expect(arrayLiteral([null, null])).toBe('{NULL,NULL}');
    expect(arrayLiteral(['x', null])).toBe('{"x",NULL}');
    expect(arrayLiteral(['a"b', 'c\\d'])).toBe('{"a\\"b","c\\\\d"}');
  });

  it('plainArrayLiteral writes numbers and texts as they are and null as NULL', () => {
    expect(plainArrayLiteral([1, '2', 3])).toBe('{1,2,3}');
    expect(plainArrayLiteral([1, null, 'x'])).toBe('{1,NULL,x}');
    expect(plainArrayLiteral([])).toBe('{}');
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.stringMatching(/^[0-9a-z.:-]{0,12}$/), fc.constant(null)), { maxLength: 30 }), (elements) => {
        expect(plainArrayLiteral(elements)).toBe(`{${elements.map((e) => (e === null ? 'NULL' : String(e))).join(',')}}`);
      }),
    );
  });
});
