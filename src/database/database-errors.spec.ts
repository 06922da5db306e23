import { isNumericOutOfRange } from './database-errors.js';

describe('isNumericOutOfRange', () => {
  it('recognizes SQLSTATE 22003 on the driver error or a wrapped cause', () => {
    expect(isNumericOutOfRange(Object.assign(new Error('numeric field overflow'), { code: '22003' }))).toBe(true);
    expect(isNumericOutOfRange(new Error('wrapped', { cause: Object.assign(new Error('numeric field overflow'), { code: '22003' }) }))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isNumericOutOfRange(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isNumericOutOfRange(new Error('plain'))).toBe(false);
    expect(isNumericOutOfRange(undefined)).toBe(false);
  });
});
