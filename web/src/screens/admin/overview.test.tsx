import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { queryKeys } from '../../api/endpoints';
import type { Overview, OverviewDaily } from '../../api/wire';
import { lastDays } from '../../lib/format';
import { OverviewScreen } from './overview';

afterEach(cleanup);

/** An overview answer as the API sends it; amounts past a float's 15-16 digits, so a float would show. */
const OVERVIEW: Overview = {
  charged_usd: '120.5',
  revenue_usd: '12.05',
  breakage_usd: '9007199254740992.500000000000000007',
  users_balance_usd: '9007199254740993.000000000000000001',
  granted_usd: '9007199254740991.123456789012345678',
  held_usd: '0.25',
  contributors_payable_usd: '80',
  contributors_pending_usd: '3',
  in_settlement_usd: '0',
  paid_usd: '20',
  refunded_usd: '0',
  unpriced_events: 0,
  hot_wallet: null,
  last_settlement: null,
};

/** The overview screen at /overview, its two answers already in the query cache (nothing fetched). */
async function renderOverview(overview: Overview) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  client.setQueryData(queryKeys.overview, overview);
  const range = lastDays(30);
  const daily: OverviewDaily = { from: range.from, to: range.to, rows: [] };
  client.setQueryData(queryKeys.overviewDaily(range.from, range.to), daily);
  const rootRoute = createRootRoute();
  const routeTree = rootRoute.addChildren([createRoute({ getParentRoute: () => rootRoute, path: '/overview', component: OverviewScreen })]);
  const router = createRouter({ routeTree, history: createMemoryHistory({ initialEntries: ['/overview'] }) });
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return screen.findByLabelText('Platform totals');
}

describe('OverviewScreen', () => {
  it('shows breakage as its own figure right after the margin, exactly as the API sent it', async () => {
    const totals = await renderOverview(OVERVIEW);
    const breakage = totals.querySelector<HTMLElement>('[data-stat="breakage_usd"]');
    expect(breakage, 'a breakage_usd figure among the platform totals').not.toBeNull();
    expect(breakage!.querySelector('dt')?.textContent).toBe('Breakage (expired grants)');
    const money = breakage!.querySelector<HTMLElement>('[data-value]')!;
    expect(money.dataset.value).toBe('9007199254740992.500000000000000007');
    expect(money.title).toBe('9007199254740992.500000000000000007 USD');
    // The margin keeps its own figure: breakage is not folded into it.
    expect(totals.querySelector<HTMLElement>('[data-stat="revenue_usd"] [data-value]')!.dataset.value).toBe('12.05');
    const names = [...totals.querySelectorAll('[data-stat]')].map((el) => el.getAttribute('data-stat'));
    expect(names.indexOf('breakage_usd')).toBe(names.indexOf('revenue_usd') + 1);
  });

  it("shows the credit grants' part beside the user balances, exactly as the API sent it", async () => {
    const totals = await renderOverview(OVERVIEW);
    const stat = (name: string) => totals.querySelector<HTMLElement>(`[data-stat="${name}"]`);
    const granted = stat('granted_usd');
    expect(granted, 'a granted_usd figure among the platform totals').not.toBeNull();
    expect(granted!.querySelector('dt')?.textContent).toBe('Of which credit grants');
    const money = granted!.querySelector<HTMLElement>('[data-value]')!;
    expect(money.dataset.value).toBe('9007199254740991.123456789012345678');
    expect(money.title).toBe('9007199254740991.123456789012345678 USD');
    // Rounded for reading from the decimal string: a float keeps no decimal at this size (…991 flat).
    expect(money.textContent).toBe('$9,007,199,254,740,991.123457');
    // Right after the balances that count it.
    const names = [...totals.querySelectorAll('[data-stat]')].map((el) => el.getAttribute('data-stat'));
    expect(names.indexOf('granted_usd')).toBe(names.indexOf('users_balance_usd') + 1);
    expect(stat('users_balance_usd')!.querySelector<HTMLElement>('[data-value]')!.dataset.value).toBe('9007199254740993.000000000000000001');
  });
});
