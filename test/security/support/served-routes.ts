// The routes the running app actually serves, as Fastify registered them (every Nest controller
// route and anything mounted beside them, such as the OpenAPI endpoints), so a new route cannot
// escape the access-control matrix.
import { servedRoutes as recordedRoutes, type ServedRoute } from '../../../src/common/http/served-routes.js';
import type { INestApplication } from '@nestjs/common';

export type { ServedRoute };

export function routeKey(route: ServedRoute): string {
  return `${route.method} ${route.path}`;
}

export function servedRoutes(app: INestApplication): ServedRoute[] {
  return recordedRoutes(app);
}

/** OpenAPI paths ("/v1/holds/{hold_id}") in Express form ("/v1/holds/:hold_id"). */
export function openApiRoutes(document: { paths: Record<string, Record<string, unknown>> }): ServedRoute[] {
  const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
  const routes: ServedRoute[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) {
      if (httpMethods.has(method)) routes.push({ method: method.toUpperCase(), path: path.replace(/\{([^}]+)\}/g, ':$1') });
    }
  }
  return routes;
}
