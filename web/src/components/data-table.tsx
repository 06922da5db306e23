import { getCoreRowModel, getFilteredRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useId, useMemo, useState, type ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Money and counts are right-aligned so their digits line up. */
  numeric?: boolean;
  /** The cell as plain text: the table filters on it, and sorts on it unless `compare` is given. */
  text?: (row: T) => string;
  /** Exact order of two rows by this column (decimal money, counts); makes the column sortable. */
  compare?: (a: T, b: T) => number;
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/**
 * A table with an accessible name (its caption) that scrolls sideways inside its own box on a
 * narrow screen instead of widening the page. Columns with `text` or `compare` sort by a click on
 * their header (@tanstack/react-table) and the filter box keeps the rows whose text contains what
 * is typed (any case). New columns (price variants, tiers) are one entry.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty = 'No rows.',
  captionHidden = false,
}: {
  caption: string;
  columns: Array<Column<T>>;
  rows: T[];
  rowKey: (row: T) => string;
  empty?: ReactNode;
  captionHidden?: boolean;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const defs = useMemo<Array<ColumnDef<T>>>(
    () =>
      columns.map((column, index) => ({
        id: String(index),
        accessorFn: (row: T) => column.text?.(row) ?? '',
        enableSorting: column.text !== undefined || column.compare !== undefined,
        enableGlobalFilter: column.text !== undefined,
        sortingFn: column.compare ? (a, b) => column.compare!(a.original, b.original) : 'text',
      })),
    [columns],
  );
  const table = useReactTable({
    data: rows,
    columns: defs,
    state: { sorting, globalFilter: filter },
    onSortingChange: setSorting,
    onGlobalFilterChange: setFilter,
    globalFilterFn: (row, columnId, value: string) => String(row.getValue(columnId)).toLowerCase().includes(value.toLowerCase()),
    getRowId: (row) => rowKey(row),
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
  });
  const filterable = rows.length > 1 && columns.some((column) => column.text !== undefined);
  const shown = table.getRowModel().rows;
  return (
    <>
      {filterable && (
        <div className="table-filter">
          <label htmlFor={filterId}>Filter {/^[A-Z][a-z]/.test(caption) ? caption.charAt(0).toLowerCase() + caption.slice(1) : caption}</label>
          <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </div>
      )}
      <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
        <table>
          <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
          <thead>
            <tr>
              {table.getFlatHeaders().map((header, index) => {
                const column = columns[index]!;
                const sorted = header.column.getIsSorted();
                return (
                  <th key={header.id} scope="col" className={column.numeric ? 'numeric' : undefined} aria-sort={sorted ? ARIA_SORT[sorted] : undefined}>
                    {header.column.getCanSort() ? (
                      <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                        {column.header}
                        <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                      </button>
                    ) : (
                      column.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 ? (
              <tr>
                <td colSpan={columns.length} className="empty">
                  {rows.length === 0 ? empty : 'No row matches the filter.'}
                </td>
              </tr>
            ) : (
              shown.map((row) => (
                <tr key={row.id}>
                  {columns.map((column) => (
                    <td key={column.header} className={column.numeric ? 'numeric' : undefined} data-label={column.header}>
                      {column.cell(row.original)}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}
