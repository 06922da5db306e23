// The write routes that read their own body or only a path: SSE stream ingestion, the LiteLLM
// price import, the path-only routes (release, revoke, approve, reconcile) and reprice.
import fc from 'fast-check';
import { GPT4O } from '../../support/billing-fixtures.js';
import { badPathSegment, badValue, deepArray, deepObject, INVALID_UTF8_SEQUENCES, RawJson, serialize, type FieldKind } from './fuzz-values.js';
import { describeValue, encodeSegment, wireMutations, type Caller, type FuzzRequest } from './fuzz-mutations.js';

export const SSE_CHUNK = (extra: Record<string, unknown>) =>
  `data: ${serialize({ id: 'fz', object: 'chat.completion.chunk', model: GPT4O, choices: [], ...extra })}\n\n`;

function sseBody(usage: Record<string, unknown>): string {
  return [
    SSE_CHUNK({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }),
    SSE_CHUNK({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    SSE_CHUNK({ usage }),
    'data: [DONE]\n\n',
  ].join('');
}

const STREAM_QUERY_FIELDS: Record<string, FieldKind> = {
  event_id: 'extId',
  user_id: 'id',
  contributor_id: 'id',
  model: 'model',
  hold_id: 'extId',
  occurred_at: 'timestamp',
  prompt_tokens: 'tokens',
};

const litellmDoc = (n: number, entry: Record<string, unknown> = {}) => ({
  [`fz-import-${n}`]: { input_cost_per_token: new RawJson('1.5e-06'), output_cost_per_token: new RawJson('6e-06'), litellm_provider: 'openai', mode: 'chat', ...entry },
});

export function streamCases(): fc.Arbitrary<FuzzRequest> {
  const n = fc.integer({ min: 1, max: 1_000_000_000 });
  const validQuery = (num: number): Record<string, string> => ({ event_id: `fz-st-${num}`, user_id: 'u_42', contributor_id: 'c_std', model: GPT4O });
  const validUsage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
  const make = (mutation: string, query: Record<string, string>, body: Buffer, contentType: string | null = 'text/event-stream'): FuzzRequest => ({
    route: 'POST /v1/usage-events/stream',
    mutation,
    method: 'POST',
    path: `/v1/usage-events/stream?${new URLSearchParams(query).toString()}`,
    caller: 'gateway',
    contentType,
    body,
    idempotent: true,
  });
  const queryCase = fc
    .tuple(n, fc.constantFrom(...Object.keys(STREAM_QUERY_FIELDS)).chain((field) => badValue(STREAM_QUERY_FIELDS[field]!).map((value) => ({ field, value }))))
    .map(([num, { field, value }]) => {
      const text = value instanceof RawJson ? value.text : typeof value === 'string' ? value : serialize(value);
      // The query string carries text; keep URLs under Node's 16 KiB header limit.
      return make(`query ${field} = ${describeValue(text)}`, { ...validQuery(num), [field]: text.slice(0, 8_000) }, Buffer.from(sseBody(validUsage)));
    });
  const usageCase = fc
    .tuple(n, fc.constantFrom('prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details'), badValue('tokens'))
    .map(([num, field, value]) => make(`stream usage.${field} = ${describeValue(value)}`, validQuery(num), Buffer.from(sseBody({ ...validUsage, [field]: value }))));
  const bodyCase = fc
    .tuple(
      n,
      fc.oneof(
        fc.uint8Array({ maxLength: 2000 }).map((bytes) => ({ label: 'random bytes', body: Buffer.from(bytes) })),
        fc.string({ unit: 'binary', maxLength: 500 }).map((text) => ({ label: 'random text', body: Buffer.from(text) })),
        fc.constant({ label: 'empty body', body: Buffer.alloc(0) }),
        fc.constant({ label: 'comments only', body: Buffer.from(': keep-alive\n\n: keep-alive\n\n') }),
        fc.constant({ label: 'data not JSON', body: Buffer.from('data: {not json\n\ndata: [DONE]\n\n') }),
        fc.constant({ label: 'deep JSON in data', body: Buffer.from(`data: ${deepObject().text}\n\ndata: ${deepArray().text}\n\n`) }),
        fc.constant({ label: 'one 1 MiB line', body: Buffer.from(`data: ${'x'.repeat(1024 * 1024)}\n\n`) }),
        fc.constantFrom(...INVALID_UTF8_SEQUENCES).map((bad) => ({
          label: `invalid UTF-8 ${bad.toString('hex')}`,
          body: Buffer.concat([Buffer.from(sseBody(validUsage).slice(0, 80)), bad, Buffer.from(sseBody(validUsage).slice(80))]),
        })),
        fc.nat().map((k) => {
          const full = Buffer.from(sseBody(validUsage));
          return { label: `truncated (${k % full.length})`, body: full.subarray(0, k % full.length) };
        }),
      ),
    )
    .map(([num, m]) => make(m.label, validQuery(num), m.body));
  const typeCase = fc
    .tuple(n, fc.constantFrom<string | null>('application/json', 'text/plain', 'text/event-streams', null, '', 'multipart/form-data; boundary=x'))
    .map(([num, type]) => make(`content-type ${String(type)}`, validQuery(num), Buffer.from(sseBody(validUsage)), type));
  return fc.oneof({ weight: 3, arbitrary: queryCase }, { weight: 3, arbitrary: usageCase }, { weight: 3, arbitrary: bodyCase }, { weight: 1, arbitrary: typeCase });
}

/** A valid non-streamed body of each wire format, with its usage object (to be mutated). */
const RESPONSE_BODIES: Record<string, (usage: Record<string, unknown>) => Record<string, unknown>> = {
  chat: (usage) => ({ object: 'chat.completion', model: GPT4O, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 3, ...usage } }),
  responses: (usage) => ({ object: 'response', model: GPT4O, status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }], usage: { input_tokens: 12, output_tokens: 3, ...usage } }),
  anthropic: (usage) => ({ type: 'message', model: GPT4O, content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 3, ...usage } }),
  gemini: (usage) => ({ candidates: [{ index: 0, content: { parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }], modelVersion: GPT4O, usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, ...usage } }),
};
/** Each format's own usage fields: a field another format reads is ignored, so the case is accepted and replayed (twice the time, nothing tested). */
const RESPONSE_USAGE_FIELDS: Record<string, string[]> = {
  chat: ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_tokens_details', 'completion_tokens_details'],
  responses: ['input_tokens', 'output_tokens', 'input_tokens_details', 'output_tokens_details'],
  anthropic: ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'],
  gemini: ['promptTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'toolUsePromptTokenCount'],
};

/** POST /v1/usage-events/response: bodies of each format with bad usage, bad shapes, bad query and format, other content types. */
export function responseCases(): fc.Arbitrary<FuzzRequest> {
  const n = fc.integer({ min: 1, max: 1_000_000_000 });
  const validQuery = (num: number): Record<string, string> => ({ event_id: `fz-rs-${num}`, user_id: 'u_42', contributor_id: 'c_std', model: GPT4O });
  const make = (mutation: string, query: Record<string, string>, body: Buffer, contentType: string | null = 'application/json'): FuzzRequest => ({
    route: 'POST /v1/usage-events/response',
    mutation,
    method: 'POST',
    path: `/v1/usage-events/response?${new URLSearchParams(query).toString()}`,
    caller: 'gateway',
    contentType,
    body,
    idempotent: true,
  });
  const format = fc.constantFrom(...Object.keys(RESPONSE_BODIES));
  const usageCase = fc
    .tuple(n, format.chain((name) => fc.constantFrom(...RESPONSE_USAGE_FIELDS[name]!).map((field) => [name, field] as const)), badValue('tokens'))
    .map(([num, [name, field], value]) => make(`${name} usage.${field} = ${describeValue(value)}`, validQuery(num), Buffer.from(serialize(RESPONSE_BODIES[name]!({ [field]: value })))));
  const shapeCase = fc
    .tuple(n, fc.constantFrom<unknown>([], null, 'x', 1, {}, deepObject(), deepArray(), { object: 'chat.completion' }, { object: 'response', output: null }, { type: 'message', content: 'x' }, [{ candidates: 1 }], { candidates: [null, 1, 'x'] }))
    .map(([num, value]) => make(`body = ${describeValue(value)}`, validQuery(num), Buffer.from(serialize(value))));
  const queryCase = fc
    .tuple(n, format, fc.constantFrom('format', ...Object.keys(STREAM_QUERY_FIELDS)).chain((field) => badValue(STREAM_QUERY_FIELDS[field] ?? 'model').map((value) => ({ field, value }))))
    .map(([num, name, { field, value }]) => {
      const text = value instanceof RawJson ? value.text : typeof value === 'string' ? value : serialize(value);
      return make(`${name} query ${field} = ${describeValue(text)}`, { ...validQuery(num), [field]: text.slice(0, 8_000) }, Buffer.from(serialize(RESPONSE_BODIES[name]!({}))));
    });
  const wireCase = fc.tuple(n, format, wireMutations).map(([num, name, m]) => make(`${name} ${m.label}`, validQuery(num), m.bytes(serialize(RESPONSE_BODIES[name]!({}))), m.contentType === undefined ? 'application/json' : m.contentType));
  return fc.oneof({ weight: 3, arbitrary: usageCase }, { weight: 2, arbitrary: shapeCase }, { weight: 2, arbitrary: queryCase }, { weight: 2, arbitrary: wireCase });
}

export function importCases(): fc.Arbitrary<FuzzRequest> {
  const n = fc.integer({ min: 1, max: 1_000_000_000 });
  const make = (mutation: string, body: Buffer, contentType: string | null = 'application/json', effectiveFrom = '2026-03-01T00:00:00Z'): FuzzRequest => ({
    route: 'POST /v1/admin/prices/import',
    mutation,
    method: 'POST',
    path: `/v1/admin/prices/import?${new URLSearchParams({ effective_from: effectiveFrom }).toString()}`,
    caller: 'admin',
    contentType,
    body,
    idempotent: true,
  });
  const entryCase = fc
    .tuple(n, fc.constantFrom('input_cost_per_token', 'output_cost_per_token', 'cache_read_input_token_cost', 'mode', 'litellm_provider'), badValue('money'))
    .map(([num, field, value]) => make(`entry ${field} = ${describeValue(value)}`, Buffer.from(serialize(litellmDoc(num, { [field]: value })))));
  const modelNameCase = fc
    .tuple(badValue('model'))
    .map(([name]) => make(`model name ${describeValue(name)}`, Buffer.from(serialize({ [typeof name === 'string' ? name : serialize(name)]: litellmDoc(0)['fz-import-0'] }))));
  const wireCase = fc.tuple(n, wireMutations).map(([num, m]) => make(m.label, m.bytes(serialize(litellmDoc(num))), m.contentType === undefined ? 'application/json' : m.contentType));
  const shapeCase = fc
    .constantFrom<unknown>([], null, 'x', 1, deepObject(), deepArray(), { a: deepObject() }, { 'fz-x': [] }, { 'fz-x': null })
    .map((value) => make(`document = ${describeValue(value)}`, Buffer.from(serialize(value))));
  const queryCase = fc
    .tuple(n, badValue('timestamp'))
    .map(([num, value]) => {
      const text = typeof value === 'string' ? value : serialize(value);
      return make(`effective_from = ${describeValue(text)}`, Buffer.from(serialize(litellmDoc(num))), 'application/json', text.slice(0, 8_000));
    });
  return fc.oneof(entryCase, modelNameCase, wireCase, shapeCase, queryCase);
}

/** Routes whose only input is the path (and a body they should ignore or refuse). */
export function pathOnlyCases(): fc.Arbitrary<FuzzRequest> {
  const routes: Array<{ route: string; method: 'POST' | 'DELETE'; path: string; caller: Caller }> = [
    { route: 'POST /v1/holds/:hold_id/release', method: 'POST', path: '/v1/holds/{param}/release', caller: 'gateway' },
    { route: 'DELETE /v1/admin/api-keys/:id', method: 'DELETE', path: '/v1/admin/api-keys/{param}', caller: 'admin' },
    { route: 'DELETE /v1/admin/users/:id/budgets/:budget_id', method: 'DELETE', path: '/v1/admin/users/u_42/budgets/{param}', caller: 'admin' },
    { route: 'POST /v1/admin/settlements/:id/approve', method: 'POST', path: '/v1/admin/settlements/{param}/approve', caller: 'admin' },
    { route: 'POST /v1/admin/settlements/:id/reconcile', method: 'POST', path: '/v1/admin/settlements/{param}/reconcile', caller: 'admin' },
    { route: 'DELETE /v1/admin/webhooks/:id', method: 'DELETE', path: '/v1/admin/webhooks/{param}', caller: 'admin' },
    { route: 'POST /v1/admin/webhooks/:id/enable', method: 'POST', path: '/v1/admin/webhooks/{param}/enable', caller: 'admin' },
    { route: 'POST /v1/admin/webhooks/:id/deliveries/:delivery_id/retry', method: 'POST', path: '/v1/admin/webhooks/{param}/deliveries/{param}/retry', caller: 'admin' },
    { route: 'DELETE /v1/contributors/:id/webhooks/:webhook_id', method: 'DELETE', path: '/v1/contributors/c_std/webhooks/{param}', caller: 'admin' },
    { route: 'POST /v1/contributors/:id/webhooks/:webhook_id/enable', method: 'POST', path: '/v1/contributors/c_std/webhooks/{param}/enable', caller: 'admin' },
    { route: 'POST /v1/contributors/:id/webhooks/:webhook_id/deliveries/:delivery_id/retry', method: 'POST', path: '/v1/contributors/c_std/webhooks/{param}/deliveries/{param}/retry', caller: 'admin' },
  ];
  const junkBody = fc.oneof(
    fc.constant<{ label: string; body: Buffer | null; type: string | null }>({ label: 'no body', body: null, type: null }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ label: `body ${describeValue(v)}`, body: Buffer.from(serialize(v)), type: 'application/json' })),
    fc.constant({ label: 'malformed JSON body', body: Buffer.from('{"a":'), type: 'application/json' }),
    fc.constant({ label: 'deep JSON body', body: Buffer.from(deepArray().text), type: 'application/json' }),
    fc.constant({ label: 'text body', body: Buffer.from('hello'), type: 'text/plain' }),
  );
  return fc.tuple(fc.constantFrom(...routes), badPathSegment, junkBody).map(([r, seg, junk]) => ({
    route: r.route,
    mutation: `path parameter ${describeValue(seg.text)}${seg.raw ? ' (raw)' : ''}, ${junk.label}`,
    method: r.method,
    path: r.path.replaceAll('{param}', encodeSegment(seg)),
    caller: r.caller,
    contentType: junk.type,
    body: junk.body,
    idempotent: true,
  }));
}

/** A route that takes no body: any JSON (behind any wire mutation) is accepted, and a replay writes nothing new. */
function anyJsonBodyCases(route: string, path: string): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(wireMutations, fc.jsonValue({ maxDepth: 3 })).map(([m, value]) => ({
    route,
    mutation: `${m.label} of ${describeValue(value)}`,
    method: 'POST' as const,
    path,
    caller: 'admin' as const,
    contentType: m.contentType === undefined ? 'application/json' : m.contentType,
    body: m.bytes(serialize(value)),
    idempotent: true,
  }));
}

/** Writes a checkpoint now. */
export function checkpointCases(): fc.Arbitrary<FuzzRequest> {
  return anyJsonBodyCases('POST /v1/admin/ledger/checkpoints', '/v1/admin/ledger/checkpoints');
}

export function repriceCases(): fc.Arbitrary<FuzzRequest> {
  return anyJsonBodyCases('POST /v1/admin/usage-events/reprice', '/v1/admin/usage-events/reprice');
}

/** Every write route with its generator; the access-control table proves the list is complete. */
