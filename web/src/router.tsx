// Routes (TanStack Router, code-based: no generator step in the build). Admin routes are wrapped
// in AdminOnly, the portal in ContributorOnly.
import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { AdminOnly, ContributorOnly, Home, NotFound, RootLayout } from './layout';
import { ApiKeysScreen } from './screens/admin/api-keys';
import { AuditLogScreen } from './screens/admin/audit-log';
import { ContributorDetailScreen } from './screens/admin/contributor-detail';
import { ContributorsScreen } from './screens/admin/contributors';
import { LedgerScreen } from './screens/admin/ledger';
import { OverviewScreen } from './screens/admin/overview';
import { PricesScreen } from './screens/admin/prices';
import { RefundsScreen } from './screens/admin/refunds';
import { SettlementDetailScreen } from './screens/admin/settlement-detail';
import { SettlementsScreen } from './screens/admin/settlements';
import { UnpricedScreen } from './screens/admin/unpriced';
import { USAGE_SEARCH, UsageScreen } from './screens/admin/usage';
import { UsageAuditScreen } from './screens/admin/usage-audit';
import { UserSpendControlsScreen } from './screens/admin/user-spend-controls';
import { UserDetailScreen, UsersScreen } from './screens/admin/users';
import { WebhooksScreen } from './screens/admin/webhooks';
import { PortalScreen } from './screens/portal/portal';

const rootRoute = createRootRoute({ component: RootLayout, notFoundComponent: NotFound });

const admin = (Screen: () => React.JSX.Element) => () => (
  <AdminOnly>
    <Screen />
  </AdminOnly>
);

const adminRoute = <const P extends string>(path: P, Screen: () => React.JSX.Element) => createRoute({ getParentRoute: () => rootRoute, path, component: admin(Screen) });

/** An admin screen that reads the named string search parameters (empty ones are dropped). */
const adminSearchRoute = <const P extends string, const N extends string>(path: P, Screen: () => React.JSX.Element, names: readonly N[]) =>
  createRoute({ getParentRoute: () => rootRoute, path, component: admin(Screen), validateSearch: (search: Record<string, unknown>) => nonEmptyStrings(search, names) });

function nonEmptyStrings<N extends string>(search: Record<string, unknown>, names: readonly N[]): Partial<Record<N, string>> {
  const out: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value = search[name];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  return out;
}

const routes = [
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: Home }),
  adminSearchRoute('/overview', OverviewScreen, ['days']),
  adminSearchRoute('/usage', UsageScreen, USAGE_SEARCH),
  adminSearchRoute('/users', UsersScreen, ['q']),
  // A user's screen; the budgets branch adds its panels through UserSpendControls (no new route needed).
  adminRoute('/users/$userId', UserDetailScreen),
  adminRoute('/api-keys', ApiKeysScreen),
  adminSearchRoute('/contributors', ContributorsScreen, ['q']),
  adminRoute('/contributors/$contributorId', ContributorDetailScreen),
  adminRoute('/settlements', SettlementsScreen),
  adminRoute('/settlements/$settlementId', SettlementDetailScreen),
  adminRoute('/unpriced', UnpricedScreen),
  // Model names hold slashes ("openai/gpt-4o"): the history is a search parameter, not a path.
  adminSearchRoute('/prices', PricesScreen, ['model']),
  adminSearchRoute('/refunds', RefundsScreen, ['event_id', 'contributor_id', 'user_id']),
  adminRoute('/webhooks', WebhooksScreen),
  adminRoute('/audit-log', AuditLogScreen),
  adminRoute('/usage-audit', UsageAuditScreen),
  adminRoute('/ledger', LedgerScreen),
  adminRoute('/users/$userId/spend', UserSpendControlsScreen),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/portal',
    component: () => (
      <ContributorOnly>
        <PortalScreen />
      </ContributorOnly>
    ),
  }),
] as const;

const routeTree = rootRoute.addChildren(routes);

export const router = createRouter({ routeTree, basepath: '/console', defaultPreload: false });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
