// The JSON write routes: a valid request of each (unique ids per case), which fields hold what
// kind of value, and the generator of malformed variants.
import fc from 'fast-check';
import { GPT4O } from '../../support/billing-fixtures.js';
import { SEEDED_EVENT_ID } from './security-fixture.js';
import { badPathSegment, RawJson, serialize, type FieldKind } from './fuzz-values.js';
import { describeValue, encodeSegment, fieldMutations, percentEncode, wireMutations, type Caller, type FuzzRequest } from './fuzz-mutations.js';

interface JsonRouteSpec {
  route: string;
  method: 'POST' | 'PUT';
  caller: Caller;
  /** `{param}` is replaced by the (possibly mutated) path parameter. */
  path: string;
  param?: { kind: FieldKind; valid: (n: number) => string };
  body: (n: number) => Record<string, unknown>;
  fields: Record<string, FieldKind>;
  idempotent: boolean | ((bodyText: string) => boolean);
}

const PAYOUT_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

export const JSON_ROUTES: JsonRouteSpec[] = [
  {
    route: 'POST /v1/usage-events',
    method: 'POST',
    caller: 'gateway',
    path: '/v1/usage-events',
    body: (n) => ({
      event_id: `fz-ev-${n}`,
      user_id: 'u_42',
      contributor_id: 'c_std',
      model: GPT4O,
      occurred_at: '2026-11-29T10:00:00Z',
      usage: { prompt_tokens: 120, completion_tokens: 35, cached_tokens: 20, reasoning_tokens: 0 },
      metadata: { stream_id: `s-${n}` },
    }),
    fields: {
      event_id: 'extId',
      user_id: 'id',
      contributor_id: 'id',
      model: 'model',
      occurred_at: 'timestamp',
      usage: 'object',
      'usage.prompt_tokens': 'tokens',
      'usage.completion_tokens': 'tokens',
      'usage.cached_tokens': 'tokens',
      'usage.reasoning_tokens': 'tokens',
      hold_id: 'extId',
      metadata: 'object',
      'metadata.stream_id': 'object',
    },
    idempotent: true,
  },
  {
    route: 'POST /v1/usage-events/batch',
    method: 'POST',
    caller: 'gateway',
    path: '/v1/usage-events/batch',
    body: (n) => ({
      events: [
        {
          event_id: `fz-bt-${n}`,
          user_id: 'u_42',
          contributor_id: 'c_prem',
          model: GPT4O,
          occurred_at: '2026-11-29T11:00:00Z',
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        },
      ],
    }),
    fields: {
      events: 'array',
      'events.0': 'object',
      'events.0.event_id': 'extId',
      'events.0.user_id': 'id',
      'events.0.contributor_id': 'id',
      'events.0.model': 'model',
      'events.0.occurred_at': 'timestamp',
      'events.0.usage': 'object',
      'events.0.usage.prompt_tokens': 'tokens',
      'events.0.usage.completion_tokens': 'tokens',
      'events.0.metadata': 'object',
    },
    idempotent: true,
  },
  {
    route: 'POST /v1/holds',
    method: 'POST',
    caller: 'gateway',
    path: '/v1/holds',
    body: (n) => ({ hold_id: `fz-h-${n}`, user_id: 'u_42', amount_usd: '0.01', expires_in_seconds: 600 }),
    fields: { hold_id: 'extId', user_id: 'id', amount_usd: 'money', expires_in_seconds: 'int' },
    idempotent: true,
  },
  {
    route: 'POST /v1/admin/users/:id/credits',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/users/{param}/credits',
    param: { kind: 'id', valid: () => 'u_fz' },
    body: (n) => ({ amount_usd: '1.5', reference: `fz-cr-${n}` }),
    fields: { amount_usd: 'signedMoney', reference: 'extId', reason: 'text' },
    idempotent: true,
  },
  {
    route: 'POST /v1/admin/prices',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/prices',
    body: (n) => ({
      model: `fz/model-${n}`,
      input_usd_per_mtok: '1.25',
      output_usd_per_mtok: '5',
      cached_input_usd_per_mtok: '0.5',
      effective_from: '2026-02-01T00:00:00Z',
    }),
    fields: { model: 'model', input_usd_per_mtok: 'money', output_usd_per_mtok: 'money', cached_input_usd_per_mtok: 'money', effective_from: 'timestamp' },
    // (model, effective_from) is the key; without effective_from ("now") each call is a new version (api.md).
    idempotent: (bodyText) => bodyText.includes('"effective_from"'),
  },
  {
    route: 'POST /v1/admin/prices/import/genai-prices',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/prices/import/genai-prices',
    // A name genai-prices does not know: the valid request imports nothing (and so replays).
    body: (n) => ({ models: [`fz/unknown-${n}`] }),
    fields: { models: 'array', 'models.0': 'model' },
    idempotent: true,
  },
  {
    route: 'PUT /v1/admin/users/:id/budgets/:budget_id',
    method: 'PUT',
    caller: 'admin',
    path: '/v1/admin/users/{param}/budgets/fz-budget',
    param: { kind: 'id', valid: (n) => `u_fz_b${n}` },
    body: () => ({ limit_usd: '5', period: 'week', action: 'block', key_id: 'fz-key', model: GPT4O, alert_at: ['0.5', '1'] }),
    fields: { limit_usd: 'money', period: 'enum', action: 'enum', key_id: 'extId', model: 'model', alert_at: 'array', 'alert_at.0': 'text' },
    idempotent: true,
  },
  {
    route: 'PUT /v1/admin/users/:id/alerts',
    method: 'PUT',
    caller: 'admin',
    path: '/v1/admin/users/{param}/alerts',
    param: { kind: 'id', valid: (n) => `u_fz_a${n}` },
    body: () => ({ balance_below_usd: ['10', '1'] }),
    fields: { balance_below_usd: 'array', 'balance_below_usd.0': 'money' },
    idempotent: true,
  },
  {
    route: 'PUT /v1/admin/users/:id/auto-topup',
    method: 'PUT',
    caller: 'admin',
    path: '/v1/admin/users/{param}/auto-topup',
    param: { kind: 'id', valid: (n) => `u_fz_t${n}` },
    body: () => ({ below_usd: '5', amount_usd: '20', max_per_month_usd: '100' }),
    fields: { below_usd: 'money', amount_usd: 'money', max_per_month_usd: 'money', enabled: 'bool' },
    idempotent: true,
  },
  {
    // No such request: every valid call is a 404 that changes nothing.
    route: 'POST /v1/admin/users/:id/auto-topup/requests/:request_id/fail',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/users/{param}/auto-topup/requests/fz-none/fail',
    param: { kind: 'id', valid: () => 'u_42' },
    body: () => ({ reason: 'card declined' }),
    fields: { reason: 'text' },
    idempotent: true,
  },
  {
    route: 'PUT /v1/admin/contributors/:id',
    method: 'PUT',
    caller: 'admin',
    path: '/v1/admin/contributors/{param}',
    param: { kind: 'id', valid: (n) => `c_fz_${n}` },
    body: () => ({ tier: 'standard', payout_address: PAYOUT_ADDRESS, status: 'active' }),
    fields: { tier: 'enum', payout_address: 'address', status: 'enum' },
    idempotent: true,
  },
  {
    route: 'PUT /v1/admin/integrations/litellm/deployments/:model_id',
    method: 'PUT',
    caller: 'admin',
    path: '/v1/admin/integrations/litellm/deployments/{param}',
    param: { kind: 'model', valid: (n) => `fz-dep-${n}` },
    body: () => ({ contributor_id: 'c_std' }),
    fields: { contributor_id: 'id' },
    idempotent: true,
  },
  {
    // One StandardLoggingPayload (LiteLLM's `single` log format). A bad payload is answered 200
    // with a `rejected` result, not a 4xx; only a body that is not JSON is a 400.
    route: 'POST /v1/integrations/litellm',
    method: 'POST',
    caller: 'gateway',
    path: '/v1/integrations/litellm',
    body: (n) => ({
      id: `fz-ll-${n}`,
      call_type: 'acompletion',
      status: 'success',
      endTime: '2026-11-29 10:00:00.000000',
      model: GPT4O,
      model_id: 'fz-dep-unmapped',
      metadata: { user_api_key_user_id: 'u_42' },
      messages: [{ role: 'user', content: 'hello' }],
      response: { usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } },
      response_cost: 0.0001,
    }),
    fields: {
      id: 'extId',
      endTime: 'timestamp',
      model: 'model',
      model_id: 'model',
      metadata: 'object',
      'metadata.user_api_key_user_id': 'id',
      response: 'object',
      'response.usage': 'object',
      'response.usage.prompt_tokens': 'tokens',
      'response.usage.completion_tokens': 'tokens',
    },
    // The status counter (payloads received) moves on every push, replays included.
    idempotent: false,
  },
  {
    route: 'POST /v1/admin/api-keys',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/api-keys',
    body: (n) => ({ role: 'contributor', contributor_id: `c_fz_${n}`, name: `fz key ${n}` }),
    fields: { role: 'enum', contributor_id: 'id', name: 'text' },
    // Every accepted call creates a new key: not idempotent by design (api.md).
    idempotent: false,
  },
  {
    route: 'POST /v1/admin/contributors/:id/adjustments',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/contributors/{param}/adjustments',
    param: { kind: 'id', valid: () => 'c_std' },
    body: (n) => ({ amount_usd: '0.25', reason: 'fuzz correction', reference: `fz-adj-${n}` }),
    fields: { amount_usd: 'signedMoney', reason: 'text', reference: 'extId' },
    idempotent: true,
  },
  {
    // Contributor trust: a well-formed proof without a challenge is a 422 that changes nothing.
    route: 'POST /v1/contributors/:id/payout-address',
    method: 'POST',
    caller: 'admin',
    path: '/v1/contributors/{param}/payout-address',
    param: { kind: 'id', valid: () => 'c_std' },
    body: (n) => ({ address: PAYOUT_ADDRESS, signature: `0x${'1b'.repeat(65)}`, nonce: n.toString(16).padStart(32, '0') }),
    fields: { address: 'address', signature: 'extId', nonce: 'extId' },
    idempotent: false,
  },
  {
    route: 'POST /v1/admin/contributors/:id/review',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/contributors/{param}/review',
    param: { kind: 'id', valid: () => 'c_std' },
    body: (n) => ({ decision: 'clear', reason: `fuzz review ${n}` }),
    fields: { decision: 'enum', reason: 'text' },
    // Every accepted review is recorded (and audited) anew.
    idempotent: false,
  },
  {
    route: 'POST /v1/admin/webhooks',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/webhooks',
    body: (n) => ({ url: `http://127.0.0.1:9/fz-${n}`, events: ['hold.expired', 'payout.paid'], description: `fz ${n}` }),
    fields: { url: 'extId', events: 'array', description: 'text' },
    // Every accepted call registers a new endpoint (with a new secret).
    idempotent: false,
  },
  {
    route: 'POST /v1/contributors/:id/webhooks',
    method: 'POST',
    caller: 'admin',
    path: '/v1/contributors/{param}/webhooks',
    param: { kind: 'id', valid: () => 'c_std' },
    body: (n) => ({ url: `http://127.0.0.1:9/fz-c-${n}`, events: ['payout.paid'] }),
    fields: { url: 'extId', events: 'array', description: 'text' },
    idempotent: false,
  },
  {
    // A tiny part of the fixture's priced event per valid request; once the charge is used up a
    // valid request is a 422 refund_exceeds_charge (a 4xx that changes nothing, as required).
    route: 'POST /v1/admin/usage-events/:event_id/refunds',
    method: 'POST',
    caller: 'admin',
    path: `/v1/admin/usage-events/{param}/refunds`,
    param: { kind: 'id', valid: () => SEEDED_EVENT_ID },
    body: (n) => ({ refund_id: `fz-rf-${n}`, amount_usd: '0.000001', reason: `fuzz refund ${n}` }),
    fields: { refund_id: 'extId', amount_usd: 'money', reason: 'text' },
    idempotent: true,
  },
  {
    // No settlement in the fixture: a valid request is a 404; malformed ones must be 400 first.
    route: 'POST /v1/admin/settlements/:id/reconciliation/resolve',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/settlements/{param}/reconciliation/resolve',
    param: { kind: 'id', valid: () => '00000000-0000-4000-8000-00000000abcd' },
    body: (n) => ({ reason: `fuzz resolution ${n}` }),
    fields: { reason: 'text' },
    idempotent: true,
  },
  {
    route: 'POST /v1/admin/settlements',
    method: 'POST',
    caller: 'admin',
    path: '/v1/admin/settlements',
    body: () => ({ dry_run: true }),
    fields: { dry_run: 'bool' },
    idempotent: true,
  },
];

export function jsonRouteCases(spec: JsonRouteSpec): fc.Arbitrary<FuzzRequest> {
  const n = fc.integer({ min: 1, max: 1_000_000_000 });
  const make = (num: number, mutation: string, body: Buffer | null, contentType: string | null = 'application/json', param?: string): FuzzRequest => ({
    route: spec.route,
    mutation,
    method: spec.method,
    path: spec.path.replace('{param}', param ?? percentEncode(spec.param?.valid(num) ?? '')),
    caller: spec.caller,
    contentType,
    body,
    idempotent: typeof spec.idempotent === 'function' ? spec.idempotent(body?.toString('utf8') ?? '') : spec.idempotent,
  });
  const fieldCase = fc.tuple(n, fieldMutations(spec.fields)).map(([num, m]) => {
    const mutated = m.apply(spec.body(num));
    return make(num, m.label, Buffer.from(mutated instanceof RawJson ? mutated.text : serialize(mutated)));
  });
  const wireCase = fc.tuple(n, wireMutations).map(([num, m]) =>
    make(num, m.label, m.bytes(serialize(spec.body(num))), m.contentType === undefined ? 'application/json' : m.contentType),
  );
  const cases: Array<{ weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }> = [
    { weight: 6, arbitrary: fieldCase },
    { weight: 3, arbitrary: wireCase },
  ];
  if (spec.param) {
    const pathCase = fc.tuple(n, badPathSegment).map(([num, seg]) =>
      make(num, `path parameter ${describeValue(seg.text)}${seg.raw ? ' (raw)' : ''}`, Buffer.from(serialize(spec.body(num))), 'application/json', encodeSegment(seg)),
    );
    cases.push({ weight: 2, arbitrary: pathCase });
  }
  return fc.oneof(...cases);
}
