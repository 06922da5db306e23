// Every route x every kind of caller, checked against ROUTE_TABLE (docs/api.md's roles).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { TEST_ADMIN_KEY } from '../../support/test-app.js';
import { ROUTE_TABLE, type RouteAccess } from './route-table.js';
import { GHOST_CONTRIBUTOR, OTHER_CONTRIBUTOR, OWN_CONTRIBUTOR, type SecurityFixture } from './security-fixture.js';

export const PRINCIPALS = [
  'no key',
  'malformed header',
  'unknown key',
  'revoked key',
  'gateway',
  'contributor (own id)',
  'contributor (other id)',
  'admin',
] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];

/** Each route gets one of these in turn: every shape is tried on many routes. */
export const MALFORMED_AUTH_HEADERS = [
  'Basic dXNlcjpwYXNzd29yZA==',
  'Bearer',
  'Bearer short',
  'Token lk_gw_abcdefghijklmnop',
  'bearer-lk_gw_abcdefghijklmnop',
  'Bearer lk_gw with spaces inside',
  `Bearer ${'A'.repeat(600)}`,
  'Bearer lk_gw_\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9',
  'Bearer lk_gw_"quoted";drop',
];

export type Expectation = 'public' | 'unauthenticated' | 'forbidden' | 'allowed';

export interface MatrixCell {
  route: string;
  principal: PrincipalName;
  path: string;
  expected: Expectation;
  status: number;
  problem: string | null;
}

export interface MatrixResult {
  cells: MatrixCell[];
  /** IDOR: a contributor naming another contributor, existing vs not: status and body must match. */
  idorComparisons: Array<{ route: string; existing: string; missing: string; same: boolean }>;
  responseTexts: string[];
}

function authHeader(f: SecurityFixture, principal: PrincipalName, routeIndex: number): string | null {
  switch (principal) {
    case 'no key':
      return null;
    case 'malformed header':
      return MALFORMED_AUTH_HEADERS[routeIndex % MALFORMED_AUTH_HEADERS.length]!;
    case 'unknown key':
      // Alternately a random well-formed key and a near miss of the bootstrap admin key.
      return routeIndex % 2 === 0 ? `Bearer lk_gw_${randomBytes(32).toString('base64url')}` : `Bearer ${TEST_ADMIN_KEY}x`;
    case 'revoked key':
      return `Bearer ${f.keys.revoked}`;
    case 'gateway':
      return `Bearer ${f.keys.gateway}`;
    case 'contributor (own id)':
    case 'contributor (other id)':
      return `Bearer ${f.keys.contributorOwn}`;
    case 'admin':
      return `Bearer ${f.keys.admin}`;
  }
}

export function expectationFor(access: RouteAccess, principal: PrincipalName): Expectation {
  if (access.public) return 'public';
  if (principal === 'no key' || principal === 'malformed header' || principal === 'unknown key' || principal === 'revoked key') return 'unauthenticated';
  const role = principal === 'gateway' ? 'gateway' : principal === 'admin' ? 'admin' : 'contributor';
  if (!access.roles.includes(role)) return 'forbidden';
  if (access.contributorScoped && principal === 'contributor (other id)') return 'forbidden';
  return 'allowed';
}

function concretePath(access: RouteAccess, principal: PrincipalName, contributorOverride?: string): string {
  const contributor = contributorOverride ?? (principal === 'contributor (other id)' ? OTHER_CONTRIBUTOR : OWN_CONTRIBUTOR);
  return access.path.replace('{contributor}', contributor);
}

function send(f: SecurityFixture, method: string, path: string, header: string | null) {
  const agent = f.t.http as unknown as Record<string, (url: string) => import('supertest').Test>;
  const req = agent[method.toLowerCase()]!(path);
  return header === null ? req : req.set('Authorization', header);
}

export function checkCell(expected: Expectation, res: Response): string | null {
  const code = (res.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (res.status >= 500 && !(expected === 'public' && res.status === 503)) return `server error ${res.status}`;
  switch (expected) {
    case 'unauthenticated':
      return res.status === 401 && code === 'unauthenticated' ? null : `expected 401 unauthenticated, got ${res.status} ${String(code ?? '')}`;
    case 'forbidden':
      return res.status === 403 && code === 'forbidden' ? null : `expected 403 forbidden, got ${res.status} ${String(code ?? '')}`;
    case 'public':
    case 'allowed':
      return res.status === 401 || res.status === 403 ? `expected access, got ${res.status} ${String(code ?? '')}` : null;
  }
}

export async function runAccessMatrix(f: SecurityFixture, routeKeys: string[]): Promise<MatrixResult> {
  const result: MatrixResult = { cells: [], idorComparisons: [], responseTexts: [] };
  for (const [routeIndex, route] of routeKeys.entries()) {
    const access = ROUTE_TABLE[route];
    if (!access) throw new Error(`route ${route} has no entry in ROUTE_TABLE`);
    const method = route.split(' ')[0]!;
    for (const principal of PRINCIPALS) {
      const path = concretePath(access, principal);
      const expected = expectationFor(access, principal);
      // No body: an allowed write answers 400/415 at the latest, after the guard let it through.
      const res = await send(f, method, path, authHeader(f, principal, routeIndex));
      result.responseTexts.push(res.text ?? '');
      result.cells.push({ route, principal, path, expected, status: res.status, problem: checkCell(expected, res) });

      if (!access.public && access.contributorScoped && principal === 'contributor (other id)') {
        const ghost = await send(f, method, concretePath(access, principal, GHOST_CONTRIBUTOR), authHeader(f, principal, routeIndex));
        result.responseTexts.push(ghost.text ?? '');
        result.idorComparisons.push({
          route,
          existing: `${res.status} ${res.text}`,
          missing: `${ghost.status} ${ghost.text}`,
          same: res.status === ghost.status && res.text === ghost.text && res.headers['content-type'] === ghost.headers['content-type'],
        });
      }
    }
  }
  return result;
}
