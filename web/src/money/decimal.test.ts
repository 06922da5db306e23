import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimal, DecimalFormatError, displayUsd, formatDecimal, formatUsd, formatUsdc, groupThousands, normalizeDecimalInput, parseDecimal, roundsToZero } from './decimal';

/** Exact reference: the value as a bigint of 10^-scale units and its sign. */
const decimalText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }))
  .map(([negative, units, scale]) => {
    const digits = units.toString().padStart(scale + 1, '0');
    const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    return { text: negative && units !== 0n ? `-${text}` : text, negative: negative && units !== 0n, units, scale };
  });

describe('formatDecimal', () => {
  it('groups thousands, pads and rounds to fixed decimals, keeps the sign', () => {
    expect(formatDecimal('1234567.5', { minDecimals: 2 })).toBe('1,234,567.50');
    expect(formatDecimal('-1234.005', { minDecimals: 2 })).toBe('-1,234.01');
    expect(formatDecimal('0.0000195', { minDecimals: 2, maxDecimals: 6 })).toBe('0.00002');
    expect(formatDecimal('999.995', { minDecimals: 2 })).toBe('1,000.00');
    expect(formatDecimal('12', { minDecimals: 0 })).toBe('12');
    expect(formatDecimal('1234.5', { minDecimals: 2, grouping: false })).toBe('1234.50');
  });

  it('keeps a tiny negative amount negative after rounding (a debt is still a debt)', () => {
    expect(formatDecimal('-0.0000001', { minDecimals: 2 })).toBe('-0.00');
    expect(formatDecimal('-0', { minDecimals: 2 })).toBe('0.00');
  });

  it('handles more digits than a JS number can hold', () => {
    expect(formatDecimal('123456789012345678901234567890.123456789012345678', { minDecimals: 18 })).toBe('123,456,789,012,345,678,901,234,567,890.123456789012345678');
    expect(formatDecimal('9007199254740993.000000000000000001', { minDecimals: 2, maxDecimals: 18 })).toBe('9,007,199,254,740,993.000000000000000001');
  });

  it('refuses what is not a decimal string', () => {
    for (const bad of ['', '1e5', '1.', '.5', '+1', '1,000', 'NaN', ' 1']) expect(() => formatDecimal(bad)).toThrow(DecimalFormatError);
  });

  it('property: with enough decimals the digits are the input, only grouped and padded', () => {
    fc.assert(
      fc.property(decimalText, ({ text }) => {
        const formatted = formatDecimal(text, { minDecimals: 0, maxDecimals: 18, grouping: false });
        // Same value: trailing zeros of the fraction (and a bare point) are the only difference.
        expect(compareDecimal(formatted, text)).toBe(0);
        expect(formatDecimal(text, { minDecimals: 0, maxDecimals: 18 }).replace(/,/g, '')).toBe(formatted);
      }),
    );
  });

  it('property: rounding to d decimals is within half a unit of the d-th place, away from zero at the half', () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 0, max: 8 }), ({ text, negative, units, scale }, decimals) => {
        const rounded = formatDecimal(text, { minDecimals: decimals, grouping: false });
        const parsed = parseDecimal(rounded.replace('-', ''));
        expect(parsed.scale).toBe(decimals);
        // |rounded - exact| * 2 <= one unit of the last place, compared at the common scale.
        const common = Math.max(scale, decimals);
        const exact = units * 10n ** BigInt(common - scale);
        const shown = parsed.units * 10n ** BigInt(common - decimals);
        const unit = 10n ** BigInt(common - decimals);
        const diff = shown > exact ? shown - exact : exact - shown;
        expect(diff * 2n <= unit).toBe(true);
        if (diff * 2n === unit) expect(shown > exact).toBe(true);
        expect(rounded.startsWith('-')).toBe(negative);
      }),
    );
  });
});

describe('formatUsd and formatUsdc', () => {
  it('shows dollars with 2 to 6 decimals and the sign before the $', () => {
    expect(['1234.5', '-12.3456789', '0'].map((v) => formatUsd(v))).toEqual(['$1,234.50', '-$12.345679', '$0.00']);
    expect(['10000000', '0.904391'].map(formatUsdc)).toEqual(['10,000,000.00', '0.904391']);
  });

  it('marks a non-zero amount that rounds to zero, so "$0.00" means exactly nothing', () => {
    expect(['0.0000003', '-0.0000003', '0', '0.0000005'].map((v) => displayUsd(v))).toEqual(['≈$0.00', '≈-$0.00', '$0.00', '$0.000001']);
    expect([roundsToZero('0.000000499999', 6), roundsToZero('0.0000005', 6)]).toEqual([true, false]);
  });
});

describe('helpers', () => {
  it('groupThousands works on the digit string', () => {
    expect(groupThousands('1')).toBe('1');
    expect(groupThousands('1000')).toBe('1,000');
    expect(groupThousands('123456789012345678901')).toBe('123,456,789,012,345,678,901');
  });

  it('compareDecimal orders exactly, across scales and signs', () => {
    expect(compareDecimal('0.10', '0.1')).toBe(0);
    expect(compareDecimal('-0.000000000000000001', '0')).toBe(-1);
    expect(compareDecimal('100000000000000000000.000000000000000001', '100000000000000000000')).toBe(1);
  });

  it('normalizeDecimalInput accepts what a person types and refuses too many decimals', () => {
    expect(normalizeDecimalInput(' 1,234.50 ', 6)).toBe('1234.50');
    expect(normalizeDecimalInput('0.1234567', 6)).toBeNull();
    expect(normalizeDecimalInput('2.5e-6', 6)).toBeNull();
    expect(normalizeDecimalInput('', 6)).toBeNull();
  });
});
