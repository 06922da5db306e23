// Chain RPC spans: viem's http transport takes a fetch function; this one wraps each JSON-RPC
// request (or batch) in a client span named after its method(s). The undici instrumentation adds
// the HTTP span below it and sends `traceparent` to the node. Off: undefined (viem's own fetch).
import { SpanKind, tracingEnabled, withSpan } from './tracing.js';

/** Methods named on a batch span at most (a batch of 100 reads is one span, not 100 names). */
const BATCH_METHODS_NAMED_MAX = 5;

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function rpcMethods(body: unknown): string[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.map((c) => (c && typeof c === 'object' && typeof (c as { method?: unknown }).method === 'string' ? (c as { method: string }).method : '?'));
  } catch {
    return [];
  }
}

export function tracedRpcFetch(): FetchFn | undefined {
  if (!tracingEnabled()) return undefined;
  return (input, init) => {
    const methods = rpcMethods(init?.body);
    const distinct = [...new Set(methods)];
    const name = methods.length === 1 ? `chain.rpc ${methods[0]}` : `chain.rpc batch`;
    const attributes = {
      'rpc.system': 'jsonrpc',
      'rpc.method': distinct.slice(0, BATCH_METHODS_NAMED_MAX).join(','),
      'rpc.jsonrpc.batch_size': methods.length,
    };
    return withSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const response = await fetch(input, init);
      span?.setAttribute('http.response.status_code', response.status);
      return response;
    });
  };
}
