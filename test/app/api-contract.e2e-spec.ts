// docs/api.md is the project's contract; the OpenAPI document at /docs-json is what the service
// actually serves. Every route of one must be in the other, so neither drifts silently.
import { readFileSync } from 'node:fs';
import { testAppForSuite } from '../support/test-app.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Routes api.md promises that are not served yet (none today): a route that arrives must leave the list. */
const PENDING_IN_OPENAPI: readonly string[] = [];

/** Served outside the OpenAPI document (the console's files, the document and its UI themselves). */
const NOT_IN_OPENAPI = new Set(['GET /console/', 'GET /docs', 'GET /docs-json']);

/** `METHOD /path` as OpenAPI writes it: `:id` becomes `{id}`, the query string is dropped. */
function normalizeRoute(method: string, path: string): string {
  const bare = (path.split('?')[0] ?? path).replace(/:([A-Za-z_]+)/g, '{$1}');
  return `${method} ${bare}`;
}

/** Every `METHOD /path` written in code spans of api.md; a bare "`DELETE` ->" is the DELETE of the PUT route before it. */
function apiMdRoutes(markdown: string): Set<string> {
  const routes = new Set<string>();
  let lastPut: string | null = null;
  const span = new RegExp(`\`(${METHODS.join('|')})(?: (/[^\`\\s]*)|\` ->)`, 'g');
  for (const match of markdown.matchAll(span)) {
    const [, method, path] = match;
    if (path === undefined) {
      if (method === 'DELETE' && lastPut !== null) routes.add(normalizeRoute('DELETE', lastPut));
      continue;
    }
    routes.add(normalizeRoute(method!, path));
    if (method === 'PUT') lastPut = path;
  }
  return routes;
}

function openApiRoutes(document: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if ((METHODS as readonly string[]).includes(method.toUpperCase())) routes.add(`${method.toUpperCase()} ${path}`);
    }
  }
  return routes;
}

describe('docs/api.md and /docs-json describe the same routes', () => {
  const t = testAppForSuite('api_contract');
  const documented = apiMdRoutes(readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8'));

  it('finds the routes written in api.md (the parser itself)', () => {
    expect(apiMdRoutes('- `GET /v1/a/:id?x=` -> 200; `PUT /v1/b/:id/c/:c_id` {..}\n  -> 200; `DELETE` -> 204; `GET /v1/d`')).toEqual(
      new Set(['GET /v1/a/{id}', 'PUT /v1/b/{id}/c/{c_id}', 'DELETE /v1/b/{id}/c/{c_id}', 'GET /v1/d']),
    );
    expect(documented.size).toBeGreaterThan(60);
  });

  it('serves every route api.md promises (except the listed pending ones)', async () => {
    const served = openApiRoutes((await t.http.get('/docs-json').expect(200)).body);
    const missing = [...documented].filter((route) => !served.has(route) && !NOT_IN_OPENAPI.has(route) && !PENDING_IN_OPENAPI.includes(route));
    expect(missing).toEqual([]);
    // A pending route that has arrived must leave the list, so the list never hides a regression.
    expect(PENDING_IN_OPENAPI.filter((route) => served.has(route))).toEqual([]);
    expect(PENDING_IN_OPENAPI.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('documents in api.md every route the service serves', async () => {
    const served = openApiRoutes((await t.http.get('/docs-json').expect(200)).body);
    expect([...served].filter((route) => !documented.has(route)).sort()).toEqual([]);
  });
});
