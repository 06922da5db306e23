import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Page } from '../api/wire';
import { DataTable, type Column } from './data-table';
import { ErrorMessage, Loading } from './states';

/**
 * A cursor-paged list of the API (`{ data, next_cursor }`) as one table: its loading and error
 * states, the empty row, and "Load more" while there is a next page. Every paged screen uses it,
 * so those states look and read the same everywhere.
 */
export function PagedTable<T>({
  queryKey,
  fetchPage,
  refetchIntervalMs,
  what,
  loadingLabel = `Loading ${what ?? 'the list'}`,
  errorTitle = `Could not load ${what ?? 'the list'}`,
  columns,
  fetchingMoreLabel = 'Load more',
  caption,
  rowKey,
  empty,
}: {
  queryKey: QueryKey;
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
  /** Re-read while shown (a delivery log that changes on its own). */
  refetchIntervalMs?: number;
  /** What the list holds ("payouts"): says "Loading payouts" and "Could not load payouts". */
  what?: string;
  loadingLabel?: string;
  errorTitle?: string;
  /** The columns, or a function of the rows loaded (a column shown only when some row has it). */
  columns: Array<Column<T>> | ((rows: T[]) => Array<Column<T>>);
  /** The button's text while the next page loads. */
  fetchingMoreLabel?: string;
  caption: string;
  rowKey: (row: T) => string;
  empty?: ReactNode;
}) {
  const list = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page: Page<T>) => page.next_cursor ?? undefined,
    ...(refetchIntervalMs === undefined ? {} : { refetchInterval: refetchIntervalMs }),
  });
  if (list.isPending) return <Loading label={loadingLabel} />;
  if (list.isError) return <ErrorMessage error={list.error} title={errorTitle} />;
  const rows = list.data.pages.flatMap((page) => page.data);
  return (
    <>
      <DataTable<T> caption={caption} rows={rows} rowKey={rowKey} empty={empty} columns={typeof columns === 'function' ? columns(rows) : columns} />
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? fetchingMoreLabel : 'Load more'}
        </button>
      )}
    </>
  );
}
