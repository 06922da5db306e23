import fc from 'fast-check';
import {
  ATTO_PER_MICRO_USDC,
  formatAttoAsUsd,
  formatMicroUsdc,
  InexactMoneyError,
  MoneyFormatError,
  multiplyAtto,
  parseMultiplier,
  parseScaledDecimal,
  parseUsdToAtto,
  splitAttoToMicroUsdc,
  sumAtto,
} from './money.js';

const attoArb = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });

describe('parseUsdToAtto / formatAttoAsUsd', () => {
  it.each([
    ['0', 0n],
    ['12.5', 12_500_000_000_000_000_000n],
    ['0.0000195', 19_500_000_000_000n],
    ['0.000000000000000001', 1n],
    ['-3.25', -3_250_000_000_000_000_000n],
  ])('parses %s', (text, atto) => {
    expect(parseUsdToAtto(text, { allowNegative: true })).toBe(atto);
  });

  it.each(['', '1e5', '1.', '.5', '+1', '1,5', ' 1', 'NaN', 'Infinity', '0x10', '1.0000000000000000001', '١'])(
    'rejects %j',
    (text) => {
      expect(() => parseUsdToAtto(text)).toThrow(MoneyFormatError);
    },
  );

  it('rejects negatives unless allowed and enforces the decimals limit', () => {
    expect(() => parseUsdToAtto('-1')).toThrow('must not be negative');
    expect(() => parseUsdToAtto('1.1234567', { decimalsMax: 6 })).toThrow('at most 6 decimals');
    expect(parseUsdToAtto('1.123456', { decimalsMax: 6 })).toBe(1_123_456_000_000_000_000n);
  });

  it('formats the shortest exact string', () => {
    expect(formatAttoAsUsd(0n)).toBe('0');
    expect(formatAttoAsUsd(6_250_000_000_000_000n)).toBe('0.00625');
    expect(formatAttoAsUsd(-1n)).toBe('-0.000000000000000001');
    expect(formatAttoAsUsd(10n ** 18n * 42n)).toBe('42');
  });

  it('round-trips every amount exactly (format then parse)', () => {
    fc.assert(
      fc.property(attoArb, (atto) => {
        expect(parseUsdToAtto(formatAttoAsUsd(atto), { allowNegative: true })).toBe(atto);
      }),
    );
  });

  it('round-trips every canonical decimal string (parse then format)', () => {
    const decimalText = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.stringMatching(/^[0-9]{0,18}$/))
      .map(([whole, fraction]) => {
        const trimmed = fraction.replace(/0+$/, '');
        return trimmed ? `${whole}.${trimmed}` : `${whole}`;
      });
    fc.assert(fc.property(decimalText, (text) => expect(formatAttoAsUsd(parseUsdToAtto(text))).toBe(text)));
  });
});

describe('sums', () => {
  it('are associative and commutative on atto amounts', () => {
    fc.assert(
      fc.property(fc.array(attoArb, { maxLength: 50 }), (values) => {
        const forward = sumAtto(values);
        expect(sumAtto([...values].reverse())).toBe(forward);
        const half = Math.floor(values.length / 2);
        expect(sumAtto(values.slice(0, half)) + sumAtto(values.slice(half))).toBe(forward);
      }),
    );
  });
});

describe('multipliers', () => {
  it('parses exact decimals with at most 4 places', () => {
    expect(parseMultiplier('1.3')).toEqual({ text: '1.3', numerator: 13000n, denominator: 10000n });
    expect(parseMultiplier('1.2500').text).toBe('1.25');
    expect(() => parseMultiplier('1.23456')).toThrow(MoneyFormatError);
    expect(() => parseMultiplier('-1')).toThrow(MoneyFormatError);
  });

  it('multiplies exactly: charge == payout + margin for any priced amount', () => {
    const markup = parseMultiplier('1.3');
    const tiers = [parseMultiplier('1.1'), parseMultiplier('1.2')];
    // Priced amounts are multiples of 10^6 atto (prices have at most 6 decimals per Mtok).
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.constantFrom(...tiers), (units, tier) => {
        const officialAtto = units * 10n ** 6n;
        const chargeAtto = multiplyAtto(officialAtto, markup);
        const payoutAtto = multiplyAtto(officialAtto, tier);
        const marginAtto = chargeAtto - payoutAtto;
        expect(chargeAtto * 10n).toBe(officialAtto * 13n);
        expect(chargeAtto).toBe(payoutAtto + marginAtto);
        expect(marginAtto >= 0n).toBe(true);
      }),
    );
  });

  it('refuses to round an inexact product', () => {
    expect(() => multiplyAtto(1n, parseMultiplier('1.3'))).toThrow(InexactMoneyError);
  });
});

describe('USDC conversion', () => {
  it('truncates to whole micro-USDC and keeps the remainder', () => {
    expect(splitAttoToMicroUsdc(1_234_567_891_234_567_891n)).toEqual({
      amountMicroUsdc: 1_234_567n,
      remainderAtto: 891_234_567_891n,
    });
    expect(formatMicroUsdc(1_234_567n)).toBe('1.234567');
    expect(() => splitAttoToMicroUsdc(-1n)).toThrow(RangeError);
  });

  it('never loses a unit: paid + remainder == payable', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (atto) => {
        const { amountMicroUsdc, remainderAtto } = splitAttoToMicroUsdc(atto);
        expect(amountMicroUsdc * ATTO_PER_MICRO_USDC + remainderAtto).toBe(atto);
        expect(remainderAtto < ATTO_PER_MICRO_USDC).toBe(true);
      }),
    );
  });
});

describe('parseScaledDecimal', () => {
  it('rejects non-strings', () => {
    expect(() => parseScaledDecimal(12 as unknown as string, 6, { decimalsMax: 6 })).toThrow(MoneyFormatError);
  });
});
