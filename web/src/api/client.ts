// The only place that talks HTTP. Every call carries `Authorization: Bearer <key>`; an API error
// becomes an ApiError holding the API's own code and message, which the screens show as is.
import { readApiKey } from '../auth/session';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | undefined | null>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Query;
  /** A JSON body (money fields are strings already), or raw text sent as is. */
  json?: unknown;
  text?: string;
  /** Overrides the stored key (sign-in checks a key before keeping it). */
  apiKey?: string;
  accept?: string;
}

/** Listeners told when the API refuses the stored key (it was revoked): the app signs out. */
const unauthenticatedListeners = new Set<() => void>();
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function buildUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error?.message) return new ApiError(response.status, body.error.code ?? 'error', body.error.message, body.error.details);
  } catch {
    // not the API's JSON error shape (a proxy's page): say what came back
  }
  return new ApiError(response.status, 'http_error', `HTTP ${response.status} ${response.statusText}`.trim());
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const apiKey = options.apiKey ?? readApiKey();
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.text !== undefined) {
    headers['content-type'] = 'application/json';
    body = options.text;
  }
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), { method: options.method ?? 'GET', headers, body, credentials: 'omit' });
  } catch (error) {
    throw new ApiError(0, 'network_error', `could not reach the API: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && options.apiKey === undefined) unauthenticatedListeners.forEach((listener) => listener());
    throw error;
  }
  return response;
}

export async function apiJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A file the API renders (CSV, later PDF): fetched with the key, handed back as a Blob. */
export async function apiBlob(path: string, options: RequestOptions = {}): Promise<{ blob: Blob; filename: string | null }> {
  const response = await send(path, options);
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
  return { blob: await response.blob(), filename };
}
