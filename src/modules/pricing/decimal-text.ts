// Exact conversion of a JSON number's decimal text ("2.5e-06", as lossless-json keeps it) into an
// integer scaled by 10^scale, with bigint maths only: a binary float never touches the value.

/** JSON number grammar (RFC 8259): no leading zeros, no "+" sign, optional fraction and exponent. */
const JSON_NUMBER_PATTERN = /^(-)?(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
export const DECIMAL_TEXT_LENGTH_MAX = 100;
/** NUMERIC(38,0) holds 38 digits; anything longer is not a price. */
export const SCALED_DIGITS_MAX = 38;
const SCALE_MAX = 100;

export type DecimalTextProblem = 'syntax' | 'inexact' | 'too_large';

export class DecimalTextError extends Error {
  constructor(
    readonly problem: DecimalTextProblem,
    message: string,
  ) {
    super(message);
    this.name = 'DecimalTextError';
  }
}

/**
 * "2.5e-06" at scale 24 -> 2500000000000000000n. Throws DecimalTextError('inexact') when the value
 * has digits below 10^-scale (nothing is ever rounded) and 'too_large' past 38 digits.
 */
export function decimalTextToScaled(text: string, scale: number): bigint {
  if (!Number.isInteger(scale) || scale < 0 || scale > SCALE_MAX) throw new RangeError(`scale must be an integer in 0..${SCALE_MAX}`);
  if (typeof text !== 'string' || text.length > DECIMAL_TEXT_LENGTH_MAX) {
    throw new DecimalTextError('syntax', `must be a JSON number of at most ${DECIMAL_TEXT_LENGTH_MAX} characters`);
  }
  const match = JSON_NUMBER_PATTERN.exec(text);
  if (!match) throw new DecimalTextError('syntax', `"${text}" is not a JSON number`);
  const [, minus, whole = '', fraction = '', exponentText = '0'] = match;
  const allDigits = whole + fraction;
  const significant = allDigits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length === 0) return 0n;
  // value = significant * 10^power10, where power10 counts the trailing zeros stripped above.
  const trailingZeros = allDigits.length - allDigits.replace(/0+$/, '').length;
  const power10 = BigInt(exponentText) - BigInt(fraction.length) + BigInt(trailingZeros) + BigInt(scale);
  if (power10 < 0n) throw new DecimalTextError('inexact', `"${text}" has digits below 10^-${scale}`);
  if (BigInt(significant.length) + power10 > BigInt(SCALED_DIGITS_MAX)) {
    throw new DecimalTextError('too_large', `"${text}" is too large`);
  }
  const magnitude = BigInt(significant) * 10n ** power10;
  return minus ? -magnitude : magnitude;
}
