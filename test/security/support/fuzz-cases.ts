// Malformed requests for every write route, generated with fast-check from a valid request of each
// route and one or more mutations (field values, missing/unknown fields, the raw body, the content
// type, the path), plus the regression cases. Deterministic for a seed.
import fc from 'fast-check';
import { JSON_ROUTES, jsonRouteCases } from './fuzz-json-routes.js';
import type { FuzzRequest } from './fuzz-mutations.js';
import { checkpointCases, importCases, pathOnlyCases, repriceCases, responseCases, streamCases } from './fuzz-raw-routes.js';
import { regressionCases } from './fuzz-regressions.js';

export type { FuzzRequest } from './fuzz-mutations.js';

export const FUZZ_ROUTES: Array<{ route: string; cases: () => fc.Arbitrary<FuzzRequest> }> = [
  ...JSON_ROUTES.map((spec) => ({ route: spec.route, cases: () => jsonRouteCases(spec) })),
  { route: 'POST /v1/usage-events/stream', cases: streamCases },
  { route: 'POST /v1/usage-events/response', cases: responseCases },
  { route: 'POST /v1/admin/prices/import', cases: importCases },
  { route: 'path-only routes', cases: pathOnlyCases },
  { route: 'POST /v1/admin/usage-events/reprice', cases: repriceCases },
  { route: 'POST /v1/admin/ledger/checkpoints', cases: checkpointCases },
];

/** `total` cases spread evenly over the routes, the same for the same seed, plus the regressions. */
export function generateFuzzCases(seed: number, total: number): FuzzRequest[] {
  const perRoute = Math.ceil(total / FUZZ_ROUTES.length);
  return [...regressionCases(), ...FUZZ_ROUTES.flatMap((r, i) => fc.sample(r.cases(), { seed: seed + i, numRuns: perRoute }))];
}

/** The write routes these generators reach (checked against ROUTE_TABLE by the fuzz suite). */
export const FUZZED_ROUTE_KEYS = [
  ...JSON_ROUTES.map((spec) => spec.route),
  'POST /v1/usage-events/stream',
  'POST /v1/usage-events/response',
  'POST /v1/admin/prices/import',
  'POST /v1/holds/:hold_id/release',
  'DELETE /v1/admin/api-keys/:id',
  'DELETE /v1/admin/users/:id/budgets/:budget_id',
  'POST /v1/admin/settlements/:id/approve',
  'POST /v1/admin/settlements/:id/reconcile',
  'POST /v1/admin/usage-events/reprice',
  'POST /v1/admin/ledger/checkpoints',
  'DELETE /v1/admin/webhooks/:id',
  'POST /v1/admin/webhooks/:id/enable',
  'POST /v1/admin/webhooks/:id/deliveries/:delivery_id/retry',
  'DELETE /v1/contributors/:id/webhooks/:webhook_id',
  'POST /v1/contributors/:id/webhooks/:webhook_id/enable',
  'POST /v1/contributors/:id/webhooks/:webhook_id/deliveries/:delivery_id/retry',
];
