// Hand-written requests that each broke the service once (a 500, or bad input stored) before its
// fix; every fuzz run sends them all, so none comes back. See docs/security.md.
import { GPT4O } from '../../support/billing-fixtures.js';
import { deepArray, deepObject, serialize } from './fuzz-values.js';
import type { Caller, FuzzRequest } from './fuzz-mutations.js';
import { SSE_CHUNK } from './fuzz-raw-routes.js';

const json = (route: string, method: 'POST' | 'PUT', path: string, caller: Caller, mutation: string, body: string | Buffer): FuzzRequest => ({
  route,
  mutation,
  method,
  path,
  caller,
  contentType: 'application/json',
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  idempotent: true,
});

const toolCallStream = (name: string, id = 'call_1') =>
  SSE_CHUNK({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '{}' } }] }, finish_reason: null }] }) +
  SSE_CHUNK({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }) +
  'data: [DONE]\n\n';

/**
 * Hand-written requests that once broke the service (each a 500 or a stored bad input before its
 * fix; see docs/security.md), run on every fuzz run so none comes back.
 */
export function regressionCases(): FuzzRequest[] {
  const event = (id: string, extra: Record<string, unknown>) =>
    serialize({ event_id: id, user_id: 'u_42', contributor_id: 'c_std', model: GPT4O, usage: { prompt_tokens: 1, completion_tokens: 1 }, ...extra });
  const huge = '99999999999999999999.9';
  const stream = (id: string, body: string, query = ''): FuzzRequest => ({
    route: 'POST /v1/usage-events/stream',
    mutation: `regression: ${id}`,
    method: 'POST',
    path: `/v1/usage-events/stream?event_id=${id}&user_id=u_42&contributor_id=c_std${query}`,
    caller: 'gateway',
    contentType: 'text/event-stream',
    body: Buffer.from(body),
    idempotent: true,
  });
  return [
    // Amounts whose sum overflowed NUMERIC(38,0): the second of each pair was a 500; both are now
    // refused by the per-request cap (1e12 USD), and an overflow would be a 422.
    json('POST /v1/admin/users/:id/credits', 'POST', '/v1/admin/users/u_huge/credits', 'admin', 'regression: huge credit 1', serialize({ amount_usd: huge, reference: 'rg-huge-1' })),
    json('POST /v1/admin/users/:id/credits', 'POST', '/v1/admin/users/u_huge/credits', 'admin', 'regression: huge credit 2 (overflow)', serialize({ amount_usd: huge, reference: 'rg-huge-2' })),
    json('POST /v1/admin/contributors/:id/adjustments', 'POST', '/v1/admin/contributors/c_other/adjustments', 'admin', 'regression: huge adjustment 1', serialize({ amount_usd: huge, reason: 'r', reference: 'rg-adj-1' })),
    json('POST /v1/admin/contributors/:id/adjustments', 'POST', '/v1/admin/contributors/c_other/adjustments', 'admin', 'regression: huge adjustment 2 (overflow)', serialize({ amount_usd: huge, reason: 'r', reference: 'rg-adj-2' })),
    // Timestamps outside what Postgres stores.
    json('POST /v1/admin/prices', 'POST', '/v1/admin/prices', 'admin', 'regression: effective_from year 0', serialize({ model: 'rg/y0', input_usd_per_mtok: '1', output_usd_per_mtok: '1', effective_from: '0000-01-01T00:00:00Z' })),
    json('POST /v1/admin/prices', 'POST', '/v1/admin/prices', 'admin', 'regression: effective_from year 0 in UTC', serialize({ model: 'rg/y0b', input_usd_per_mtok: '1', output_usd_per_mtok: '1', effective_from: '0001-01-01T00:30:00+01:00' })),
    json('POST /v1/admin/prices', 'POST', '/v1/admin/prices', 'admin', 'regression: effective_from year 10000 in UTC', serialize({ model: 'rg/y10k', input_usd_per_mtok: '1', output_usd_per_mtok: '1', effective_from: '9999-12-31T23:00:00-05:00' })),
    { ...json('POST /v1/admin/prices/import', 'POST', '/v1/admin/prices/import?effective_from=0000-01-01T00%3A00%3A00Z', 'admin', 'regression: import effective_from year 0', '{"rg-m":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6}}') },
    json('POST /v1/usage-events', 'POST', '/v1/usage-events', 'gateway', 'regression: occurred_at year 0', event('rg-y0', { occurred_at: '0000-01-01T00:00:00Z' })),
    // Text Postgres cannot store: NUL, and lone surrogates in jsonb.
    { ...json('POST /v1/admin/api-keys', 'POST', '/v1/admin/api-keys', 'admin', 'regression: key name with NUL', serialize({ role: 'gateway', name: 'a\u0000b' })), idempotent: false },
    { ...json('POST /v1/admin/api-keys', 'POST', '/v1/admin/api-keys', 'admin', 'regression: key name lone surrogate', serialize({ role: 'gateway', name: 'a\ud800b' })), idempotent: false },
    json('POST /v1/admin/users/:id/credits', 'POST', '/v1/admin/users/u_fz/credits', 'admin', 'regression: reason lone surrogate', serialize({ amount_usd: '1', reference: 'rg-sur', reason: '\ud800' })),
    json('POST /v1/admin/contributors/:id/adjustments', 'POST', '/v1/admin/contributors/c_std/adjustments', 'admin', 'regression: reason NUL', serialize({ amount_usd: '1', reference: 'rg-nul', reason: 'x\u0000' })),
    json('POST /v1/usage-events', 'POST', '/v1/usage-events', 'gateway', 'regression: metadata value NUL', event('rg-mn', { metadata: { k: '\u0000' } })),
    json('POST /v1/usage-events', 'POST', '/v1/usage-events', 'gateway', 'regression: metadata key lone surrogate', event('rg-ms', { metadata: { '\udc00': 1 } })),
    json('POST /v1/usage-events', 'POST', '/v1/usage-events', 'gateway', 'regression: metadata 10,000 levels deep', event('rg-md', { metadata: { k: deepArray() } })),
    json('POST /v1/usage-events/batch', 'POST', '/v1/usage-events/batch', 'gateway', 'regression: batch event metadata deep', `{"events":[${event('rg-bmd', { metadata: { k: deepObject() } })}]}`),
    json('POST /v1/usage-events/batch', 'POST', '/v1/usage-events/batch', 'gateway', 'regression: batch event metadata NUL', `{"events":[${event('rg-bmn', { metadata: { k: '\u0000' } })}]}`),
    // Invalid UTF-8 used to be decoded to U+FFFD and stored.
    {
      ...json('POST /v1/admin/api-keys', 'POST', '/v1/admin/api-keys', 'admin', 'regression: invalid UTF-8 in a name', Buffer.concat([Buffer.from('{"role":"gateway","name":"a'), Buffer.from([0xff]), Buffer.from('"}')])),
      idempotent: false,
    },
    // A bare JSON number as the LiteLLM document used to be read as an object.
    json('POST /v1/admin/prices/import', 'POST', '/v1/admin/prices/import', 'admin', 'regression: import document is a number', '1'),
    // Stream text that lands in the stored stream details (jsonb).
    stream('rg-st-nul', toolCallStream('a\u0000b')),
    stream('rg-st-sur', toolCallStream('a\ud800b', '\udfff')),
    stream('rg-st-y0', toolCallStream('f'), '&occurred_at=0000-01-01T00%3A00%3A00Z'),
    // NUL in unvalidated path parameters reached Postgres (500).
    json('POST /v1/admin/contributors/:id/adjustments', 'POST', '/v1/admin/contributors/a%00b/adjustments', 'admin', 'regression: NUL in :id', serialize({ amount_usd: '1', reason: 'r', reference: 'rg-nul-path' })),
    { ...json('POST /v1/holds/:hold_id/release', 'POST', '/v1/holds/%00/release', 'gateway', 'regression: NUL in :hold_id', ''), contentType: null, body: null },
    // Request lines past Node's 16 KiB header limit are answered by Node itself (431).
    { ...json('POST /v1/holds', 'POST', `/v1/holds?pad=${'x'.repeat(20_000)}`, 'gateway', 'regression: 20 KB request line', '{}') },
  ];
}
