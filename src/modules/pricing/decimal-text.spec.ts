import fc from 'fast-check';
import { formatScaledDecimal } from '../../common/money/index.js';
import { DecimalTextError, decimalTextToScaled } from './decimal-text.js';

/** value / 10^scale written in normalized exponent notation, e.g. 25n, 7 -> "2.5e-6". */
function exponentText(value: bigint, scale: number, exponentPad: number): string {
  if (value === 0n) return '0e0';
  const digits = value.toString();
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const exponent = digits.length - 1 - scale;
  const sign = exponent < 0 ? '-' : '';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(exponentPad, '0')}`;
}

function problemOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof DecimalTextError ? error.problem : 'other';
  }
}

describe('decimalTextToScaled', () => {
  it.each([
    ['2.5e-06', 24, 2_500_000_000_000_000_000n],
    ['1e-05', 24, 10_000_000_000_000_000_000n],
    ['1.25E-6', 24, 1_250_000_000_000_000_000n],
    ['3.625e-09', 24, 3_625_000_000_000_000n],
    ['0.00012', 24, 120_000_000_000_000_000_000n],
    ['0.0', 24, 0n],
    ['0', 12, 0n],
    ['-0', 12, 0n],
    ['-1.5e+2', 0, -150n],
    ['100', 0, 100n],
    ['12.50', 1, 125n],
    ['1e37', 0, 10n ** 37n],
    ['0.000000000000000000000000000000000000001e39', 0, 1n],
  ])('%s at scale %i is %s', (text, scale, expected) => {
    expect(decimalTextToScaled(text, scale)).toBe(expected);
  });

  it.each([
    ['1.5', 0, 'inexact'],
    ['2.5e-13', 12, 'inexact'],
    ['1e-999999999999', 24, 'inexact'],
    ['1e38', 0, 'too_large'],
    ['9e999999999999', 0, 'too_large'],
    ['+1', 0, 'syntax'],
    ['01', 0, 'syntax'],
    ['1.', 0, 'syntax'],
    ['.5', 0, 'syntax'],
    ['NaN', 0, 'syntax'],
    ['Infinity', 0, 'syntax'],
    ['0x10', 0, 'syntax'],
    [' 1', 0, 'syntax'],
    ['1'.repeat(101), 0, 'syntax'],
  ])('%s at scale %i is refused as %s', (text, scale, problem) => {
    expect(problemOf(() => decimalTextToScaled(text, scale))).toBe(problem);
  });

  it('round-trips every scaled integer through plain and exponent notation (bigint maths only)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        (value, scale, exponentPad, negative) => {
          const signed = negative ? -value : value;
          const plain = formatScaledDecimal(signed, scale);
          expect(decimalTextToScaled(plain, scale)).toBe(signed);
          const sci = (signed < 0n ? '-' : '') + exponentText(value, scale, exponentPad);
          expect(decimalTextToScaled(sci, scale)).toBe(signed);
          expect(decimalTextToScaled(sci.toUpperCase(), scale)).toBe(signed);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('matches mantissa * 10^exponent computed with bigint for arbitrary exponents', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: 0, max: 24 }),
        (mantissa, exponent, scale) => {
          const text = `${mantissa}e${exponent}`;
          const power = exponent + scale;
          let expected: bigint | 'inexact' | 'too_large';
          if (power >= 0) expected = mantissa * 10n ** BigInt(power);
          else expected = mantissa % 10n ** BigInt(-power) === 0n ? mantissa / 10n ** BigInt(-power) : 'inexact';
          if (typeof expected === 'bigint' && expected >= 10n ** 38n) expected = 'too_large';
          if (typeof expected === 'bigint') expect(decimalTextToScaled(text, scale)).toBe(expected);
          else expect(problemOf(() => decimalTextToScaled(text, scale))).toBe(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never rounds: one more digit below the scale is always inexact', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 18 }), fc.integer({ min: 1, max: 9 }), (value, scale, extra) => {
        const text = formatScaledDecimal(value * 10n + BigInt(extra), scale + 1);
        expect(problemOf(() => decimalTextToScaled(text, scale))).toBe('inexact');
      }),
    );
  });
});
