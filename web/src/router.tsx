// Routes (TanStack Router, code-based: no generator step in the build). Admin routes are wrapped
// in AdminOnly, the portal in ContributorOnly.
import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { AdminOnly, ContributorOnly, Home, NotFound, RootLayout } from './layout';
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
import { UsageAuditScreen } from './screens/admin/usage-audit';
import { WebhooksScreen } from './screens/admin/webhooks';
import { PortalScreen } from './screens/portal/portal';

const rootRoute = createRootRoute({ component: RootLayout, notFoundComponent: NotFound });

const admin = (Screen: () => React.JSX.Element) => () => (
  <AdminOnly>
    <Screen />
  </AdminOnly>
);

const routes = [
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: Home }),
  createRoute({ getParentRoute: () => rootRoute, path: '/overview', component: admin(OverviewScreen) }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/contributors',
    component: admin(ContributorsScreen),
    validateSearch: (search: Record<string, unknown>): { q?: string } => (typeof search.q === 'string' && search.q !== '' ? { q: search.q } : {}),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/contributors/$contributorId', component: admin(ContributorDetailScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settlements', component: admin(SettlementsScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settlements/$settlementId', component: admin(SettlementDetailScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/unpriced', component: admin(UnpricedScreen) }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/prices',
    component: admin(PricesScreen),
    // Model names hold slashes ("openai/gpt-4o"): the history is a search parameter, not a path.
    validateSearch: (search: Record<string, unknown>): { model?: string } => (typeof search.model === 'string' && search.model !== '' ? { model: search.model } : {}),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/refunds',
    component: admin(RefundsScreen),
    validateSearch: (search: Record<string, unknown>): { event_id?: string; contributor_id?: string; user_id?: string } => {
      const out: { event_id?: string; contributor_id?: string; user_id?: string } = {};
      for (const name of ['event_id', 'contributor_id', 'user_id'] as const) {
        const value = search[name];
        if (typeof value === 'string' && value !== '') out[name] = value;
      }
      return out;
    },
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/webhooks', component: admin(WebhooksScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/audit-log', component: admin(AuditLogScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/usage-audit', component: admin(UsageAuditScreen) }),
  createRoute({ getParentRoute: () => rootRoute, path: '/ledger', component: admin(LedgerScreen) }),
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
