import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

export interface ServedRoute {
  method: string;
  /** The pattern as registered, in Express/Nest form ("/v1/holds/:hold_id"). */
  path: string;
}

const ROUTES = new WeakMap<object, Map<string, ServedRoute>>();

/**
 * Keeps every route the app registers (Nest controllers and anything mounted beside them, such as
 * the OpenAPI endpoints), so the security suite can hold the access-control matrix to all of them.
 * Register before the app initialises: Fastify reports only routes added after the hook.
 */
export function recordServedRoutes(fastify: FastifyInstance): void {
  const routes = new Map<string, ServedRoute>();
  ROUTES.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // Fastify adds a HEAD route for every GET itself (no route here declares HEAD): the GET stands for both.
      if (method === 'HEAD') continue;
      routes.set(`${method} ${route.url}`, { method, path: route.url });
    }
  });
}

/** Every route served, sorted by "METHOD path". */
export function servedRoutes(app: INestApplication): ServedRoute[] {
  const routes = ROUTES.get(app.getHttpAdapter().getInstance() as object);
  if (!routes) throw new Error('served routes were not recorded: createHttpApp registers the hook');
  return [...routes.values()].sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}
