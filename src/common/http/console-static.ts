// Serves the web console (web/, built by `npm run build` into web/dist) at /console/: the built
// files, index.html for every client-side route, and a small config document. Public like /docs:
// the console holds no secret; it signs in with an API key and then uses only the REST API.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errors/error-body.js';

export const CONSOLE_PATH = '/console';

/**
 * Strict: only the console's own files run (no inline script or style, no eval), it talks only to
 * this origin, and no other site may frame it. `img-src data:` is for the SVG icons of the chart
 * library's legend; downloads go through blob: URLs, which CSP does not govern.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** Vite names every file under assets/ by its content hash: it may be cached for ever. */
const IMMUTABLE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;
/** The last path segment has an extension: a file request, never a client-side route. */
const FILE_LIKE = /\.[A-Za-z0-9]{1,8}$/;

export interface ConsoleOptions {
  /** Directory with index.html and assets/ (web/dist of the repository by default). */
  directory?: string;
  /** Block-explorer link for a transaction hash; `{tx_hash}` is replaced, else the hash is appended. */
  explorerTxUrl?: string;
}

/** web/dist of the repository this module runs from (src/ under tests, dist/src/ when built). */
export function defaultConsoleDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return join(directory, 'web', 'dist');
}

function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  return reply;
}

export function registerConsole(fastify: FastifyInstance, options: ConsoleOptions = {}): void {
  const root = options.directory ?? defaultConsoleDirectory();
  const config = { chain_explorer_tx_url: options.explorerTxUrl ?? null };

  const sendIndex = (reply: FastifyReply) => {
    if (!existsSync(join(root, 'index.html'))) {
      sendError(reply, 404, 'not_found', 'the console is not built: run npm run build');
      return reply;
    }
    // Always revalidated, so a new build's asset names are picked up at once.
    return withSecurityHeaders(reply).header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  };

  void fastify.register(async (instance) => {
    // Its own encapsulated instance: the OpenAPI UI registers @fastify/static too.
    await instance.register(fastifyStatic, { root, serve: false, dotfiles: 'ignore' });
    instance.get(`${CONSOLE_PATH}/`, (_request, reply) => sendIndex(reply));
    instance.get(`${CONSOLE_PATH}/config.json`, (_request, reply) => withSecurityHeaders(reply).header('cache-control', 'no-cache').send(config));
    instance.get(`${CONSOLE_PATH}/*`, (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
      const path = request.params['*'];
      if (!FILE_LIKE.test(path)) return sendIndex(reply);
      const immutable = path.startsWith('assets/');
      // @fastify/send refuses paths that leave root (.., encoded or not) and answers 404 for a missing file.
      return withSecurityHeaders(reply).sendFile(path, immutable ? { maxAge: IMMUTABLE_MAX_AGE_MS, immutable: true } : { maxAge: 0 });
    });
  });
}
