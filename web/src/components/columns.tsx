// The columns most tables share, one definition each so a status, a time, an amount or a
// transaction reads the same on every screen: `columns={[statusColumn((p) => p.status), ...]}`.
import { Link } from '@tanstack/react-router';
import { formatTimestamp } from '../lib/format';
import type { Column } from './data-table';
import { Money } from './money';
import { StatusBadge } from './status-badge';
import { TxLink } from './tx-link';

type Read<T, V> = (row: T) => V;

export function statusColumn<T>(status: Read<T, string>, header = 'Status'): Column<T> {
  return { header, cell: (row) => <StatusBadge status={status(row)} /> };
}

/** A timestamp as the console writes them ("—" when absent). */
export function timeColumn<T>(header: string, at: Read<T, string | null | undefined>): Column<T> {
  return { header, cell: (row) => formatTimestamp(at(row)) };
}

/** A decimal amount, right-aligned. */
export function moneyColumn<T>(header: string, value: Read<T, string | null | undefined>, unit: 'USD' | 'USDC' = 'USD'): Column<T> {
  return { header, numeric: true, cell: (row) => <Money value={value(row)} unit={unit} /> };
}

export function txColumn<T>(hash: Read<T, string | null | undefined>, header = 'Transaction'): Column<T> {
  return { header, cell: (row) => <TxLink hash={hash(row)} /> };
}

/** The contributor's detail screen, or nothing when the row has none. */
export function contributorColumn<T>(contributorId: Read<T, string | null | undefined>, header = 'Contributor'): Column<T> {
  return {
    header,
    cell: (row) => {
      const id = contributorId(row);
      return id ? <Link to="/contributors/$contributorId" params={{ contributorId: id }}>{id}</Link> : '';
    },
  };
}
