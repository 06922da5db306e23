import { displayUsd, formatUsdc, isDecimalString, isNegativeDecimal } from '../money/decimal';

/**
 * A USD amount from the API. The text is rounded for reading (at most 6 decimals); the exact
 * string stays in `title` and `data-value` (what the e2e suite compares with the API).
 */
export function Money({ value, unit = 'USD' }: { value: string | null | undefined; unit?: 'USD' | 'USDC' }) {
  if (value === null || value === undefined) return <span className="money muted">—</span>;
  if (!isDecimalString(value)) return <span className="money">{String(value)}</span>;
  const text = unit === 'USDC' ? `${formatUsdc(value)} USDC` : displayUsd(value);
  return (
    <span className={isNegativeDecimal(value) ? 'money negative' : 'money'} data-value={value} title={`${value} ${unit}`}>
      {text}
    </span>
  );
}
