// The routes the running app actually serves, read from Express's router (every Nest controller
// route and anything mounted beside them, such as the OpenAPI endpoints), so a new route cannot
// escape the access-control matrix.
import type { INestApplication } from '@nestjs/common';

export interface ServedRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

export function routeKey(route: ServedRoute): string {
  return `${route.method} ${route.path}`;
}

export function servedRoutes(app: INestApplication): ServedRoute[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: RouterLayer[] }; _router?: { stack: RouterLayer[] } };
  const stack = (express.router ?? express._router)?.stack;
  if (!stack) throw new Error('cannot read the Express router stack (Express internals changed?)');
  const routes = new Map<string, ServedRoute>();
  for (const layer of stack) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (!enabled || method === '_all') continue;
      for (const path of paths) {
        const route = { method: method.toUpperCase(), path };
        routes.set(routeKey(route), route);
      }
    }
  }
  return [...routes.values()].sort((a, b) => routeKey(a).localeCompare(routeKey(b)));
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
