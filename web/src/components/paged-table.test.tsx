import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import type { Page } from '../api/wire';
import { PagedTable } from './paged-table';

afterEach(cleanup);

interface Row {
  id: string;
}

const wrapper = ({ children }: { children: React.ReactNode }) => (
  <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{children}</QueryClientProvider>
);

function table(fetchPage: (cursor: string | undefined) => Promise<Page<Row>>) {
  return (
    <PagedTable<Row>
      queryKey={['rows', Math.random()]}
      fetchPage={fetchPage}
      loadingLabel="Loading rows"
      errorTitle="Could not load rows"
      caption="Rows"
      rowKey={(r) => r.id}
      empty="No rows yet."
      columns={(rows) => [{ header: `Id (${rows.length})`, cell: (r) => r.id }]}
    />
  );
}

describe('PagedTable', () => {
  it('says it is loading, then shows the empty row', async () => {
    let answer: (page: Page<Row>) => void = () => undefined;
    render(table(() => new Promise((resolve) => (answer = resolve))), { wrapper });
    expect(screen.getByRole('status').textContent).toBe('Loading rows…');
    answer({ data: [], next_cursor: null });
    expect(await screen.findByText('No rows yet.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it("shows the API's error with its title", async () => {
    render(table(() => Promise.reject(new ApiError(403, 'forbidden', 'admins only'))), { wrapper });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load rows');
    expect(alert.textContent).toContain('admins only');
  });

  it('loads the next page with the cursor and appends its rows', async () => {
    const cursors: Array<string | undefined> = [];
    render(
      table(async (cursor) => {
        cursors.push(cursor);
        return cursor === undefined ? { data: [{ id: 'a' }, { id: 'b' }], next_cursor: 'c2' } : { data: [{ id: 'c' }], next_cursor: null };
      }),
      { wrapper },
    );
    expect(await screen.findByText('b')).toBeTruthy();
    expect(screen.getByRole('columnheader').textContent).toBe('Id (2)');
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('c')).toBeTruthy();
    expect(screen.getByRole('columnheader').textContent).toBe('Id (3)');
    expect(cursors).toEqual([undefined, 'c2']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });
});
