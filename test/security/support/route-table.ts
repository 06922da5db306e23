// Who may call each route, from docs/api.md (the contract), not from the code's decorators: the
// matrix then proves the decorators match the contract. A route the app serves that is missing
// here fails the access-control test, so a new route cannot ship without a decision.
import type { Role } from '../../../src/common/auth/auth.types.js';
import { GHOST_CONTRIBUTOR, SEEDED_EVENT_ID, SEEDED_HOLD_ID } from './security-fixture.js';

export type RouteAccess =
  | { public: true; path: string }
  | {
      public?: false;
      roles: Role[];
      /** The concrete path to call; `{contributor}` is replaced by the contributor id under test. */
      path: string;
      /** `:id` is a contributor: a contributor key may only name its own (IDOR). */
      contributorScoped?: boolean;
    };

const NO_SUCH_UUID = '00000000-0000-4000-8000-00000000abcd';
const admin: Role[] = ['admin'];
const gatewayOrAdmin: Role[] = ['gateway', 'admin'];
const contributorOrAdmin: Role[] = ['contributor', 'admin'];

export const ROUTE_TABLE: Record<string, RouteAccess> = {
  // Operations (public by contract).
  'GET /health': { public: true, path: '/health' },
  'GET /health/ready': { public: true, path: '/health/ready' },
  'GET /metrics': { public: true, path: '/metrics' },
  'GET /docs': { public: true, path: '/docs' },
  'GET /docs/': { public: true, path: '/docs/' },
  'GET /docs/index.html': { public: true, path: '/docs/index.html' },
  'GET /docs/LICENSE': { public: true, path: '/docs/LICENSE' },
  'GET /docs/swagger-ui-init.js': { public: true, path: '/docs/swagger-ui-init.js' },
  'GET /docs/docs/swagger-ui-init.js': { public: true, path: '/docs/docs/swagger-ui-init.js' },
  // The UI's static files (@fastify/static), e.g. its stylesheet.
  'GET /docs/*': { public: true, path: '/docs/swagger-ui.css' },
  'GET /docs-json': { public: true, path: '/docs-json' },
  'GET /docs-yaml': { public: true, path: '/docs-yaml' },
  // The web console's static files (api.md "Web console"): it signs in with a key in the browser.
  'GET /console/': { public: true, path: '/console/' },
  'GET /console/config.json': { public: true, path: '/console/config.json' },
  'GET /console/*': { public: true, path: '/console/settlements' },

  // Who the presented key is (the console's sign-in): every role, about itself only.
  'GET /v1/me': { roles: ['admin', 'gateway', 'contributor'], path: '/v1/me' },

  // Keys (admin).
  'POST /v1/admin/api-keys': { roles: admin, path: '/v1/admin/api-keys' },
  'GET /v1/admin/api-keys': { roles: admin, path: '/v1/admin/api-keys' },
  'DELETE /v1/admin/api-keys/:id': { roles: admin, path: `/v1/admin/api-keys/${NO_SUCH_UUID}` },

  // Prices (admin).
  'POST /v1/admin/prices': { roles: admin, path: '/v1/admin/prices' },
  'GET /v1/admin/prices': { roles: admin, path: '/v1/admin/prices' },
  'POST /v1/admin/prices/import': { roles: admin, path: '/v1/admin/prices/import' },
  'POST /v1/admin/prices/import/genai-prices': { roles: admin, path: '/v1/admin/prices/import/genai-prices' },

  // Contributors (admin).
  'PUT /v1/admin/contributors/:id': { roles: admin, path: `/v1/admin/contributors/${GHOST_CONTRIBUTOR}` },
  'GET /v1/admin/contributors': { roles: admin, path: '/v1/admin/contributors' },
  'GET /v1/admin/contributors/:id': { roles: admin, path: '/v1/admin/contributors/{contributor}' },
  'POST /v1/admin/contributors/:id/adjustments': { roles: admin, path: '/v1/admin/contributors/{contributor}/adjustments' },
  // The usage audit (admin).
  'GET /v1/admin/usage-audit': { roles: admin, path: '/v1/admin/usage-audit' },
  'POST /v1/admin/contributors/:id/review': { roles: admin, path: '/v1/admin/contributors/{contributor}/review' },

  // Users and credit.
  'GET /v1/admin/users': { roles: admin, path: '/v1/admin/users' },
  'POST /v1/admin/users/:id/credits': { roles: admin, path: '/v1/admin/users/u_42/credits' },
  'GET /v1/users/:id/balance': { roles: gatewayOrAdmin, path: '/v1/users/u_42/balance' },
  // Spend controls (api.md "Spend controls (users)").
  'PUT /v1/admin/users/:id/budgets/:budget_id': { roles: admin, path: '/v1/admin/users/u_42/budgets/sec-budget' },
  'DELETE /v1/admin/users/:id/budgets/:budget_id': { roles: admin, path: '/v1/admin/users/u_42/budgets/sec-budget-none' },
  'GET /v1/users/:id/budgets': { roles: gatewayOrAdmin, path: '/v1/users/u_42/budgets' },
  'PUT /v1/admin/users/:id/alerts': { roles: admin, path: '/v1/admin/users/u_42/alerts' },
  'GET /v1/users/:id/alerts': { roles: gatewayOrAdmin, path: '/v1/users/u_42/alerts' },
  'PUT /v1/admin/users/:id/auto-topup': { roles: admin, path: '/v1/admin/users/u_42/auto-topup' },
  'GET /v1/users/:id/auto-topup': { roles: gatewayOrAdmin, path: '/v1/users/u_42/auto-topup' },
  'POST /v1/admin/users/:id/auto-topup/requests/:request_id/fail': { roles: admin, path: '/v1/admin/users/u_42/auto-topup/requests/sec-none/fail' },

  // Holds (gateway; admin too).
  'POST /v1/holds': { roles: gatewayOrAdmin, path: '/v1/holds' },
  'POST /v1/holds/:hold_id/release': { roles: gatewayOrAdmin, path: '/v1/holds/sec-hold-none/release' },
  'GET /v1/holds/:hold_id': { roles: gatewayOrAdmin, path: `/v1/holds/${SEEDED_HOLD_ID}` },

  // Usage events (gateway; admin too).
  'POST /v1/usage-events': { roles: gatewayOrAdmin, path: '/v1/usage-events' },
  'POST /v1/usage-events/batch': { roles: gatewayOrAdmin, path: '/v1/usage-events/batch' },
  'POST /v1/usage-events/stream': { roles: gatewayOrAdmin, path: '/v1/usage-events/stream' },
  'POST /v1/usage-events/response': { roles: gatewayOrAdmin, path: '/v1/usage-events/response' },
  'GET /v1/usage-events/:event_id': { roles: gatewayOrAdmin, path: `/v1/usage-events/${SEEDED_EVENT_ID}` },
  // LiteLLM proxy integration (api.md "Integrations (gateway)").
  'POST /v1/integrations/litellm': { roles: gatewayOrAdmin, path: '/v1/integrations/litellm' },
  'GET /v1/admin/integrations/litellm/deployments': { roles: admin, path: '/v1/admin/integrations/litellm/deployments' },
  'PUT /v1/admin/integrations/litellm/deployments/:model_id': { roles: admin, path: '/v1/admin/integrations/litellm/deployments/sec-dep' },
  'GET /v1/admin/integrations/litellm/status': { roles: admin, path: '/v1/admin/integrations/litellm/status' },
  'GET /v1/admin/usage-events': { roles: admin, path: '/v1/admin/usage-events' },
  'GET /v1/admin/usage/summary': { roles: admin, path: '/v1/admin/usage/summary?group_by=day' },
  'GET /v1/admin/usage-events/unpriced-by-model': { roles: admin, path: '/v1/admin/usage-events/unpriced-by-model' },
  'POST /v1/admin/usage-events/reprice': { roles: admin, path: '/v1/admin/usage-events/reprice' },
  'POST /v1/admin/usage-events/:event_id/refunds': { roles: admin, path: '/v1/admin/usage-events/sec-event/refunds' },
  'GET /v1/admin/refunds': { roles: admin, path: '/v1/admin/refunds' },

  // Contributor earnings: a contributor for itself, an admin for any.
  'GET /v1/contributors/:id/balance': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/balance', contributorScoped: true },
  'GET /v1/contributors/:id/earnings': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/earnings', contributorScoped: true },
  'GET /v1/contributors/:id/earnings.csv': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/earnings.csv', contributorScoped: true },
  'GET /v1/contributors/:id/payouts': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/payouts', contributorScoped: true },
  // Contributor trust: payout-address proof (a contributor for itself, an admin for any).
  'GET /v1/contributors/:id/payout-address': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/payout-address', contributorScoped: true },
  'GET /v1/contributors/:id/payout-address/challenge': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/payout-address/challenge', contributorScoped: true },
  'POST /v1/contributors/:id/payout-address': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/payout-address', contributorScoped: true },
  'GET /v1/contributors/:id/statements/:month': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/statements/2026-11', contributorScoped: true },

  // Settlements (admin).
  'POST /v1/admin/settlements': { roles: admin, path: '/v1/admin/settlements' },
  'GET /v1/admin/settlements': { roles: admin, path: '/v1/admin/settlements' },
  'GET /v1/admin/settlements/:id': { roles: admin, path: `/v1/admin/settlements/${NO_SUCH_UUID}` },
  'POST /v1/admin/settlements/:id/approve': { roles: admin, path: `/v1/admin/settlements/${NO_SUCH_UUID}/approve` },
  'POST /v1/admin/settlements/:id/reconcile': { roles: admin, path: `/v1/admin/settlements/${NO_SUCH_UUID}/reconcile` },
  'POST /v1/admin/settlements/:id/reconciliation/resolve': { roles: admin, path: `/v1/admin/settlements/${NO_SUCH_UUID}/reconciliation/resolve` },

  // Webhooks (admin); a contributor's own endpoints (contributor for itself, admin for any).
  'POST /v1/admin/webhooks': { roles: admin, path: '/v1/admin/webhooks' },
  'GET /v1/admin/webhooks': { roles: admin, path: '/v1/admin/webhooks' },
  'GET /v1/admin/webhooks/event-types': { roles: admin, path: '/v1/admin/webhooks/event-types' },
  'GET /v1/admin/webhooks/:id': { roles: admin, path: `/v1/admin/webhooks/${NO_SUCH_UUID}` },
  'DELETE /v1/admin/webhooks/:id': { roles: admin, path: `/v1/admin/webhooks/${NO_SUCH_UUID}` },
  'POST /v1/admin/webhooks/:id/enable': { roles: admin, path: `/v1/admin/webhooks/${NO_SUCH_UUID}/enable` },
  'GET /v1/admin/webhooks/:id/deliveries': { roles: admin, path: `/v1/admin/webhooks/${NO_SUCH_UUID}/deliveries` },
  'POST /v1/admin/webhooks/:id/deliveries/:delivery_id/retry': { roles: admin, path: `/v1/admin/webhooks/${NO_SUCH_UUID}/deliveries/1/retry` },
  'POST /v1/contributors/:id/webhooks': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/webhooks', contributorScoped: true },
  'GET /v1/contributors/:id/webhooks': { roles: contributorOrAdmin, path: '/v1/contributors/{contributor}/webhooks', contributorScoped: true },
  'GET /v1/contributors/:id/webhooks/:webhook_id': { roles: contributorOrAdmin, path: `/v1/contributors/{contributor}/webhooks/${NO_SUCH_UUID}`, contributorScoped: true },
  'DELETE /v1/contributors/:id/webhooks/:webhook_id': { roles: contributorOrAdmin, path: `/v1/contributors/{contributor}/webhooks/${NO_SUCH_UUID}`, contributorScoped: true },
  'POST /v1/contributors/:id/webhooks/:webhook_id/enable': { roles: contributorOrAdmin, path: `/v1/contributors/{contributor}/webhooks/${NO_SUCH_UUID}/enable`, contributorScoped: true },
  'GET /v1/contributors/:id/webhooks/:webhook_id/deliveries': { roles: contributorOrAdmin, path: `/v1/contributors/{contributor}/webhooks/${NO_SUCH_UUID}/deliveries`, contributorScoped: true },
  'POST /v1/contributors/:id/webhooks/:webhook_id/deliveries/:delivery_id/retry': {
    roles: contributorOrAdmin,
    path: `/v1/contributors/{contributor}/webhooks/${NO_SUCH_UUID}/deliveries/1/retry`,
    contributorScoped: true,
  },

  // Admin overview and checks.
  'GET /v1/admin/overview': { roles: admin, path: '/v1/admin/overview' },
  'GET /v1/admin/overview/daily': { roles: admin, path: '/v1/admin/overview/daily' },
  'GET /v1/admin/ledger/check': { roles: admin, path: '/v1/admin/ledger/check' },
  'POST /v1/admin/ledger/checkpoints': { roles: admin, path: '/v1/admin/ledger/checkpoints' },
  'GET /v1/admin/audit-log': { roles: admin, path: '/v1/admin/audit-log' },
};

/** Served by the app but not routes of the API: Nest's not-found handler, one per HTTP method. */
export function isNotFoundCatchAll(path: string): boolean {
  return path.includes('*splat');
}

/** Served by the OpenAPI module or the console's static files, not by a controller (so /docs-json does not describe them). */
export function isOpenApiAsset(path: string): boolean {
  return path === '/docs' || path.startsWith('/docs/') || path === '/docs-json' || path === '/docs-yaml' || path.startsWith('/console/');
}
