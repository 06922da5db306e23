// Money arrives from the API as exact decimal strings ("12.5", "-0.0000195"). Everything here
// works on the digits (strings and bigint), never on a JS number: a float cannot hold 18 decimals
// of atto-USD, and a rounding done by the browser would show a figure the ledger never had.

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

export interface ParsedDecimal {
  negative: boolean;
  /** All digits without the point ("12.50" -> 1250n) and how many of them are decimals. */
  units: bigint;
  scale: number;
}

export class DecimalFormatError extends Error {
  constructor(text: unknown) {
    super(`not a decimal string: ${JSON.stringify(text)}`);
    this.name = 'DecimalFormatError';
  }
}

export function isDecimalString(text: unknown): text is string {
  return typeof text === 'string' && DECIMAL.test(text);
}

export function parseDecimal(text: string): ParsedDecimal {
  const match = DECIMAL.exec(text);
  if (!match) throw new DecimalFormatError(text);
  const fraction = match[3] ?? '';
  const units = BigInt(`${match[2]}${fraction}`);
  return { negative: match[1] === '-' && units !== 0n, units, scale: fraction.length };
}

/** Rounds to `decimals` places, half away from zero (as a cashier would). */
export function roundUnits(parsed: ParsedDecimal, decimals: number): bigint {
  if (parsed.scale <= decimals) return parsed.units * 10n ** BigInt(decimals - parsed.scale);
  const divisor = 10n ** BigInt(parsed.scale - decimals);
  const quotient = parsed.units / divisor;
  return (parsed.units % divisor) * 2n >= divisor ? quotient + 1n : quotient;
}

/** "1234567" -> "1,234,567" on the digit string. */
export function groupThousands(digits: string, separator = ','): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

export interface FormatOptions {
  /** Decimals always shown (zeros padded). Default 2. */
  minDecimals?: number;
  /** Decimals at most; more are rounded half away from zero. Default: minDecimals (fixed). */
  maxDecimals?: number;
  /** Thousands separators in the whole part. Default true. */
  grouping?: boolean;
  /** Put before the digits, after the sign ("$"). */
  prefix?: string;
}

/**
 * Formats a decimal string: `formatDecimal("-1234.5", {minDecimals: 2})` is "-1,234.50". A value
 * that rounds to zero keeps its sign ("-0.00"): a tiny debt is still a debt.
 */
export function formatDecimal(text: string, options: FormatOptions = {}): string {
  const minDecimals = options.minDecimals ?? 2;
  const maxDecimals = Math.max(options.maxDecimals ?? minDecimals, minDecimals);
  const parsed = parseDecimal(text);
  const rounded = roundUnits(parsed, maxDecimals).toString().padStart(maxDecimals + 1, '0');
  const whole = rounded.slice(0, rounded.length - maxDecimals);
  let fraction = rounded.slice(rounded.length - maxDecimals);
  while (fraction.length > minDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const wholeText = options.grouping === false ? whole : groupThousands(whole);
  return `${parsed.negative ? '-' : ''}${options.prefix ?? ''}${wholeText}${fraction ? `.${fraction}` : ''}`;
}

/** USD as the console shows it: "$1,234.50", at least 2 and at most 6 decimals (micro-USD). */
export function formatUsd(text: string, options: Omit<FormatOptions, 'prefix'> = {}): string {
  return formatDecimal(text, { minDecimals: 2, maxDecimals: 6, ...options, prefix: '$' });
}

/** True when the value is not zero but shows as zero at `decimals` places. */
export function roundsToZero(text: string, decimals: number): boolean {
  const parsed = parseDecimal(text);
  return parsed.units !== 0n && roundUnits(parsed, decimals) === 0n;
}

/**
 * The text the console shows for a USD amount: formatUsd, and "≈" before a non-zero amount that
 * rounds to zero (a remainder below a micro-dollar), so "$0.00" always means exactly nothing.
 */
export function displayUsd(text: string): string {
  return roundsToZero(text, 6) ? `≈${formatUsd(text)}` : formatUsd(text);
}

/** USDC amounts have at most 6 decimals, so this is exact: "1,234.5 USDC" -> "1,234.50". */
export function formatUsdc(text: string): string {
  return formatDecimal(text, { minDecimals: 2, maxDecimals: 6 });
}

/** Compares two decimal strings exactly: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = [parseDecimal(a), parseDecimal(b)];
  const scale = Math.max(x.scale, y.scale);
  const signed = (p: ParsedDecimal) => (p.negative ? -1n : 1n) * p.units * 10n ** BigInt(scale - p.scale);
  const [sx, sy] = [signed(x), signed(y)];
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

export function isNegativeDecimal(text: string): boolean {
  return parseDecimal(text).negative;
}

/**
 * For chart geometry only (a bar's height is a float of pixels anyway): never shown as text.
 * Every figure a person reads comes from the exact string through formatDecimal.
 */
export function toChartNumber(text: string): number {
  parseDecimal(text);
  return Number(text);
}

/** A decimal typed by a person ("1,234.50" or "0.15"): the canonical string to send, or null. */
export function normalizeDecimalInput(text: string, decimalsMax: number): string | null {
  const cleaned = text.trim().replace(/,/g, '');
  const match = DECIMAL.exec(cleaned);
  if (!match || (match[3] ?? '').length > decimalsMax) return null;
  return cleaned;
}
