import { displayUsd, formatDecimal, formatUsdc, isDecimalString, isNegativeDecimal } from '../money/decimal';

/** Decimals of every money column: micro-USD and USDC's own 6, so the digits of a column line up. */
export const COLUMN_DECIMALS = 6;

/**
 * A USD amount from the API. The text is rounded for reading (at most 6 decimals; exactly
 * `decimals` when given, as table columns do); the exact string stays in `title` and `data-value`
 * (what the e2e suite compares with the API). Formatted from the decimal string, never a float.
 */
export function Money({ value, unit = 'USD', decimals }: { value: string | null | undefined; unit?: 'USD' | 'USDC'; decimals?: number }) {
  if (value === null || value === undefined) return <span className="money muted">—</span>;
  if (!isDecimalString(value)) return <span className="money">{String(value)}</span>;
  const fixed = decimals === undefined ? null : formatDecimal(value, { minDecimals: decimals, prefix: unit === 'USD' ? '$' : '' });
  const text = fixed !== null ? (unit === 'USDC' ? `${fixed} USDC` : fixed) : unit === 'USDC' ? `${formatUsdc(value)} USDC` : displayUsd(value);
  return (
    <span className={isNegativeDecimal(value) ? 'money negative' : 'money'} data-value={value} title={`${value} ${unit}`}>
      {text}
    </span>
  );
}
