// Money is a bigint count of one fixed unit: atto-USD (1e-18 USD), like wei to ETH.
// Decimal strings at the API are parsed and formatted here and nowhere else. No floats.

export const USD_DECIMALS = 18;
export const ATTO_PER_USD = 10n ** 18n;
/** USDC has 6 decimals: one base unit (micro-USDC) is 1e-6 USD = 1e12 atto-USD. */
export const USDC_DECIMALS = 6;
export const ATTO_PER_MICRO_USDC = 10n ** 12n;
/** Largest magnitude NUMERIC(38,0) holds. */
export const ATTO_ABS_MAX = 10n ** 38n - 1n;

export class MoneyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoneyFormatError';
  }
}

const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;
const DIGITS_MAX = 40;

export interface ParseDecimalOptions {
  /** Most digits allowed after the point. */
  decimalsMax: number;
  allowNegative?: boolean;
}

/** Parses a plain decimal string ("12.5", "0.0000195") into an integer scaled by 10^scale. */
export function parseScaledDecimal(text: string, scale: number, options: ParseDecimalOptions): bigint {
  if (typeof text !== 'string') throw new MoneyFormatError('must be a decimal string');
  if (text.length === 0 || text.length > DIGITS_MAX + 2) throw new MoneyFormatError('must be a decimal string of at most 40 digits');
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw new MoneyFormatError('must be a plain decimal string like "12.5" (no exponent, sign only "-")');
  const [, minus, whole = '', fraction = ''] = match;
  if (fraction.length > options.decimalsMax) {
    throw new MoneyFormatError(`must have at most ${options.decimalsMax} decimals`);
  }
  if (minus && !options.allowNegative) throw new MoneyFormatError('must not be negative');
  const digits = whole + fraction.padEnd(scale, '0');
  const magnitude = BigInt(digits);
  if (magnitude > ATTO_ABS_MAX) throw new MoneyFormatError('is too large');
  return minus ? -magnitude : magnitude;
}

/** Formats an integer scaled by 10^scale as the shortest exact decimal string. */
export function formatScaledDecimal(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  const text = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return negative ? `-${text}` : text;
}

/** "0.0000195" USD -> 19500000000000 atto-USD. */
export function parseUsdToAtto(text: string, options: Partial<ParseDecimalOptions> = {}): bigint {
  return parseScaledDecimal(text, USD_DECIMALS, { decimalsMax: USD_DECIMALS, ...options });
}

export function formatAttoAsUsd(atto: bigint): string {
  return formatScaledDecimal(atto, USD_DECIMALS);
}

export function formatMicroUsdc(amountMicroUsdc: bigint): string {
  return formatScaledDecimal(amountMicroUsdc, USDC_DECIMALS);
}

export function microUsdcToAtto(amountMicroUsdc: bigint): bigint {
  return amountMicroUsdc * ATTO_PER_MICRO_USDC;
}

/**
 * Settlement rule: the payable amount is truncated to whole micro-USDC; the sub-micro remainder
 * stays payable. Only defined for non-negative amounts (nothing negative is ever paid out).
 */
export function splitAttoToMicroUsdc(atto: bigint): { amountMicroUsdc: bigint; remainderAtto: bigint } {
  if (atto < 0n) throw new RangeError('cannot convert a negative amount to USDC');
  return { amountMicroUsdc: atto / ATTO_PER_MICRO_USDC, remainderAtto: atto % ATTO_PER_MICRO_USDC };
}

/** An exact decimal multiplier such as 1.3, kept as numerator / 10^scale. */
export interface DecimalMultiplier {
  readonly text: string;
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export const MULTIPLIER_DECIMALS_MAX = 4;

export function parseMultiplier(text: string): DecimalMultiplier {
  const numerator = parseScaledDecimal(text, MULTIPLIER_DECIMALS_MAX, { decimalsMax: MULTIPLIER_DECIMALS_MAX });
  const denominator = 10n ** BigInt(MULTIPLIER_DECIMALS_MAX);
  return { text: formatScaledDecimal(numerator, MULTIPLIER_DECIMALS_MAX), numerator, denominator };
}

export class InexactMoneyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InexactMoneyError';
  }
}

/**
 * atto * multiplier, exactly. Amounts priced from per-Mtok prices with at most 6 decimals are
 * multiples of 10^6 atto, so a multiplier with at most 4 decimals never leaves a remainder; one
 * that would is a broken invariant, not something to round away.
 */
export function multiplyAtto(atto: bigint, multiplier: DecimalMultiplier): bigint {
  const scaled = atto * multiplier.numerator;
  if (scaled % multiplier.denominator !== 0n) {
    throw new InexactMoneyError(`${atto} atto x ${multiplier.text} is not a whole number of atto`);
  }
  return scaled / multiplier.denominator;
}

export function sumAtto(values: Iterable<bigint>): bigint {
  let total = 0n;
  for (const value of values) total += value;
  return total;
}
