// The columns most tables share, one definition each so a status, a time, an amount or a
// transaction reads the same on every screen: `columns={[statusColumn((p) => p.status), ...]}`.
import { Link } from '@tanstack/react-router';
import { formatTimestamp } from '../lib/format';
import type { Column } from './data-table';
import { compareDecimal } from '../money/decimal';
import { COLUMN_DECIMALS, Money } from './money';
import { StatusBadge } from './status-badge';
import { TxLink } from './tx-link';

type Read<T, V> = (row: T) => V;

export function statusColumn<T>(status: Read<T, string>, header = 'Status'): Column<T> {
  return { header, text: status, cell: (row) => <StatusBadge status={status(row)} /> };
}

/** A timestamp as the console writes them ("—" when absent). */
export function timeColumn<T>(header: string, at: Read<T, string | null | undefined>): Column<T> {
  // ISO UTC text sorts in time order.
  return { header, text: (row) => at(row) ?? '', cell: (row) => formatTimestamp(at(row)) };
}

/** A decimal amount, right-aligned with a fixed number of decimals; sorts exactly (absent first). */
export function moneyColumn<T>(header: string, value: Read<T, string | null | undefined>, unit: 'USD' | 'USDC' = 'USD', decimals = COLUMN_DECIMALS): Column<T> {
  return {
    header,
    numeric: true,
    text: (row) => value(row) ?? '',
    compare: (a, b) => {
      const [x, y] = [value(a), value(b)];
      return x == null || y == null ? Number(y == null) - Number(x == null) : compareDecimal(x, y);
    },
    cell: (row) => <Money value={value(row)} unit={unit} decimals={decimals} />,
  };
}

/** A count, right-aligned, sorted as a number. */
export function countColumn<T>(header: string, value: Read<T, number>): Column<T> {
  return { header, numeric: true, text: (row) => String(value(row)), compare: (a, b) => value(a) - value(b), cell: (row) => value(row).toLocaleString('en-US') };
}

/** Plain text (ids, models), filtered and sorted as text. */
export function textColumn<T>(header: string, value: Read<T, string | null | undefined>): Column<T> {
  return { header, text: (row) => value(row) ?? '', cell: (row) => value(row) ?? '' };
}

export function txColumn<T>(hash: Read<T, string | null | undefined>, header = 'Transaction'): Column<T> {
  return { header, cell: (row) => <TxLink hash={hash(row)} /> };
}

/** The contributor's detail screen, or nothing when the row has none. */
export function contributorColumn<T>(contributorId: Read<T, string | null | undefined>, header = 'Contributor'): Column<T> {
  return {
    header,
    text: (row) => contributorId(row) ?? '',
    cell: (row) => {
      const id = contributorId(row);
      return id ? <Link to="/contributors/$contributorId" params={{ contributorId: id }}>{id}</Link> : '';
    },
  };
}
