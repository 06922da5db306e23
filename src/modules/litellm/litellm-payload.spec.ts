import fc from 'fast-check';
import { parseLitellmBody, skeletonOf, UNREADABLE_LINE } from './litellm-body.js';
import { ProvenUsageEvent, parseUsageEvent } from '../usage/usage-event-parse.js';
import { billableEvent, floatToDecimalText, litellmTime, planLitellmPayload } from './litellm-payload.js';
import { spendLogPayload } from './litellm-spend-log-payload.js';

const USER_FIELDS = ['metadata.user_api_key_user_id', 'metadata.user_api_key_team_id', 'metadata.user_api_key_hash'];

const payload = (overrides: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  call_type: 'acompletion',
  status: 'success',
  endTime: 1764496800.5,
  model: 'gpt-4o-2024-08-06',
  model_id: 'dep-1',
  metadata: { user_api_key_user_id: null, user_api_key_team_id: 'team-1', user_api_key_hash: 'h1' },
  hidden_params: { litellm_model_name: 'openai/gpt-4o' },
  model_map_information: { model_map_key: 'gpt-4o' },
  response: { usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } },
  response_cost: 2.25e-4,
  messages: [{ role: 'user', content: 'secret prompt' }],
  ...overrides,
});

describe('planLitellmPayload (api.md "Integrations": the LiteLLM mapping)', () => {
  it('maps id, endTime, model precedence, deployment, user and usage', () => {
    expect(planLitellmPayload(payload(), { userFields: USER_FIELDS })).toEqual({
      kind: 'event',
      id: 'chatcmpl-1',
      eventId: 'litellm:chatcmpl-1',
      modelId: 'dep-1',
      event: {
        event_id: 'litellm:chatcmpl-1',
        user_id: 'team-1',
        model: 'gpt-4o',
        occurred_at: '2025-11-30T10:00:00.500Z',
        usage: { prompt_tokens: 10, completion_tokens: 20, cached_tokens: 0, reasoning_tokens: 0 },
        metadata: { litellm_model_id: 'dep-1', litellm_response_cost_usd: '0.000225' },
      },
      occurredAt: new Date('2025-11-30T10:00:00.500Z'),
    });
  });

  it('falls back to hidden_params.litellm_model_name, then model; and to the top-level token counts', () => {
    const noKey = planLitellmPayload(payload({ model_map_information: { model_map_key: '' } }), { userFields: USER_FIELDS });
    expect(noKey.kind === 'event' && noKey.event.model).toBe('openai/gpt-4o');
    const bare = planLitellmPayload(payload({ model_map_information: undefined, hidden_params: {}, response: 'text', prompt_tokens: 7, completion_tokens: 3 }), { userFields: USER_FIELDS });
    expect(bare.kind === 'event' && [bare.event.model, bare.event.usage]).toEqual(['gpt-4o-2024-08-06', { prompt_tokens: 7, completion_tokens: 3, cached_tokens: 0, reasoning_tokens: 0 }]);
  });

  it('takes the variant from response.service_tier as streams do', () => {
    const flex = planLitellmPayload(payload({ response: { service_tier: 'flex', usage: { prompt_tokens: 1, completion_tokens: 1 } } }), { userFields: USER_FIELDS });
    expect(flex.kind === 'event' && flex.event.price_variant).toBe('flex');
    const standard = planLitellmPayload(payload({ response: { service_tier: 'default', usage: { prompt_tokens: 1, completion_tokens: 1 } } }), { userFields: USER_FIELDS });
    expect(standard.kind === 'event' && standard.event.price_variant).toBeUndefined();
  });

  it.each([
    [{ status: 'failure' }, 'failure'],
    [{ cache_hit: true }, 'cache_hit'],
    [{ call_type: 'aspeech' }, 'unsupported_call_type'],
    [{ call_type: 'image_generation' }, 'unsupported_call_type'],
  ])('skips %j with reason %s', (overrides, reason) => {
    expect(planLitellmPayload(payload(overrides), { userFields: USER_FIELDS })).toMatchObject({ kind: 'skipped', reason });
  });

  it.each(['completion', 'acompletion', 'text_completion', 'atext_completion', 'responses', 'aresponses', 'embedding', 'aembedding'])('bills call type %s', (callType) => {
    expect(planLitellmPayload(payload({ call_type: callType }), { userFields: USER_FIELDS }).kind).toBe('event');
  });

  it.each([
    [null, /JSON object/],
    [{ ...payload(), id: '' }, /id/],
    [payload({ endTime: 'soon' }), /endTime/],
    [payload({ model_id: null, hidden_params: {} }), /model_id/],
    [payload({ metadata: {} }), /user/],
    [payload({ response: {}, prompt_tokens: undefined }), /usage/],
  ])('rejects %j with a message naming the field', (value, message) => {
    const plan = planLitellmPayload(value, { userFields: USER_FIELDS });
    expect(plan.kind).toBe('rejected');
    expect(plan.kind === 'rejected' && plan.message).toMatch(message);
  });

  it('never carries the messages or the response text into what it returns (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), fc.string({ minLength: 8 }), (prompt, reply) => {
        const marker = `«${prompt}»`;
        const plan = planLitellmPayload(
          payload({ messages: [{ role: 'user', content: marker }], response: { choices: [{ message: { content: `«${reply}»` } }], usage: { prompt_tokens: 3, completion_tokens: 4 } } }),
          { userFields: USER_FIELDS },
        );
        const text = JSON.stringify(plan);
        return !text.includes(marker) && !text.includes(`«${reply}»`);
      }),
    );
  });
});

describe('litellmTime', () => {
  it('reads epoch seconds and LiteLLM naive datetimes as UTC, rounded to the millisecond', () => {
    expect(litellmTime(1764496800)).toBe('2025-11-30T10:00:00.000Z');
    expect(litellmTime('2025-01-24 09:20:46.851954')).toBe('2025-01-24T09:20:46.852Z');
    expect(litellmTime('2025-01-24 09:20:46')).toBe('2025-01-24T09:20:46.000Z');
    expect(litellmTime('2025-01-24T09:20:46.5+02:00')).toBe('2025-01-24T07:20:46.500Z');
    expect([litellmTime('yesterday'), litellmTime(1764496800000), litellmTime(NaN), litellmTime(null)]).toEqual([null, null, null, null]);
  });

  it('agrees for an instant written as epoch seconds and as a naive datetime (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 946_684_800_000, max: 7_258_118_399_000 }), (ms) => {
        const iso = new Date(ms).toISOString();
        return litellmTime(ms / 1000) === iso && litellmTime(iso.replace('T', ' ').replace('Z', '')) === iso;
      }),
    );
  });
});

describe('floatToDecimalText', () => {
  it('writes a float as plain decimal text that reads back as the same float (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (value) => {
        const text = floatToDecimalText(value)!;
        return /^\d+(\.\d+)?$/.test(text) && Number(text) === value;
      }),
    );
    expect(floatToDecimalText(2.25e-7)).toBe('0.000000225');
    expect(floatToDecimalText(0.00022500000000000002)).toBe('0.00022500000000000002');
    expect([floatToDecimalText(-1), floatToDecimalText('1'), floatToDecimalText(Infinity)]).toEqual([null, null, null]);
  });
});

describe('parseLitellmBody (generic_api log_format json_array, single, ndjson)', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  it('reads an array, one object, and NDJSON with a bad line of its own', () => {
    expect(parseLitellmBody(bytes('[{"id":"a"},{"id":"b"}]'))).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(parseLitellmBody(bytes(' {"id":"a"} '))).toEqual([{ id: 'a' }]);
    expect(parseLitellmBody(bytes('{"id":"a"}\n{oops\n\n{"id":"b"}\n'))).toEqual([{ id: 'a' }, UNREADABLE_LINE, { id: 'b' }]);
    expect(parseLitellmBody(bytes('  '))).toEqual([]);
  });
  it('refuses what is neither JSON nor NDJSON', () => {
    for (const text of ['hello', '[1,', '{oops', '"text"', '42']) expect(parseLitellmBody(bytes(text))).toBeNull();
    expect(parseLitellmBody(Buffer.from([0x5b, 0xff, 0x5d]))).toBeNull();
  });
});

describe('spendLogPayload (a LiteLLM_SpendLogs row as the push fields)', () => {
  it('maps the columns onto the fields the push mapping reads, to the same event', () => {
    const row = {
      request_id: 'chatcmpl-1',
      call_type: 'acompletion',
      api_key: 'h1',
      spend: 2.25e-4,
      prompt_tokens: 10,
      completion_tokens: 20,
      end_time: '2025-11-30T10:00:00.500Z',
      model: 'gpt-4o-2024-08-06',
      model_id: 'dep-1',
      custom_llm_provider: 'openai',
      user: '',
      team_id: 'team-1',
      end_user: null,
      cache_hit: 'False',
      status: 'success',
      usage_object: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
      model_map_key: 'gpt-4o',
    };
    const pulled = planLitellmPayload(spendLogPayload(row), { userFields: USER_FIELDS });
    const pushed = planLitellmPayload(payload(), { userFields: USER_FIELDS });
    expect(pulled).toEqual(pushed);
    expect(planLitellmPayload(spendLogPayload({ ...row, cache_hit: 'True' }), { userFields: USER_FIELDS })).toMatchObject({ kind: 'skipped', reason: 'cache_hit' });
  });
});

describe('skeletonOf (long strings read past, never decoded)', () => {
  it('parses to the same values except that long strings become ""', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string({ maxLength: 20 }), text: fc.string({ maxLength: 80 }), n: fc.integer() }), { maxLength: 5 }), (values) => {
        const bytes = Buffer.from(JSON.stringify(values), 'utf8');
        const cut = JSON.parse(skeletonOf(bytes, 40).toString('utf8')) as typeof values;
        return cut.every((v, i) => {
          const original = values[i]!;
          const keep = (s: string) => (Buffer.byteLength(JSON.stringify(s)) - 2 > 40 ? '' : s);
          return v.n === original.n && v.id === keep(original.id) && v.text === keep(original.text);
        });
      }),
    );
  });
  it('keeps escaped quotes inside a string and leaves an unterminated body as it is', () => {
    const body = Buffer.from(`[{"id":"a\\\\","m":"${'x\\"'.repeat(50)}"}]`);
    expect(JSON.parse(skeletonOf(body, 40).toString())).toEqual([{ id: 'a\\', m: '' }]);
    const cut = Buffer.from('[{"id":"abc');
    expect(skeletonOf(cut, 1)).toBe(cut);
  });
});

describe('billableEvent (the mapped event proven without a second parse)', () => {
  const mostly = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: other, weight: 1 });
  const text = mostly(fc.stringMatching(/^[\x21-\x7E]{1,24}$/), fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 5 }), fc.constantFrom('', 'a b', 'José', 'x'.repeat(250))));
  const ms = fc.integer({ min: Date.UTC(1999, 0, 1), max: Date.UTC(2201, 0, 1) });
  const endTime = fc.oneof(
    ms.map((t) => t / 1000),
    ms.map((t) => new Date(t).toISOString().replace('T', ' ').replace('Z', '')),
    fc.tuple(ms, fc.integer({ min: 0, max: 999_999 })).map(([t, us]) => `${new Date(t).toISOString().slice(0, 19).replace('T', ' ')}.${String(us).padStart(6, '0')}`),
    ms.map((t) => new Date(t).toISOString().replace('Z', '+05:30')),
    fc.constantFrom('0000-01-01 00:00:00', '9999-12-31T23:59:59.9999+00:00', '0001-01-01T00:30:00+01:00', 'yesterday'),
  );
  const count = mostly(fc.integer({ min: 0, max: 5000 }), fc.oneof(fc.constant(2 ** 31), fc.constant(-1), fc.double()));
  const litellmPayload = fc.record({
    id: text,
    model: text,
    model_id: text,
    endTime,
    user: text,
    usage: fc.record({ prompt_tokens: count, completion_tokens: count, prompt_tokens_details: fc.record({ cached_tokens: count }), completion_tokens_details: fc.record({ reasoning_tokens: fc.constantFrom(0, 3, 10_000) }) }),
    service_tier: fc.option(fc.constantFrom('flex', 'priority', 'default', 'scale', 'US'), { nil: undefined }),
    response_cost: fc.option(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constant(1e300)), { nil: undefined }),
  });

  it('is the body itself, or proven with what the usage parse would output for that body (property)', () => {
    let proven = 0;
    fc.assert(
      fc.property(litellmPayload, text, (p, contributorId) => {
        const raw = { id: p.id, call_type: 'acompletion', status: 'success', endTime: p.endTime, model: p.model, model_id: p.model_id, metadata: { user_api_key_user_id: p.user }, response: { usage: p.usage, service_tier: p.service_tier }, response_cost: p.response_cost };
        const plan = planLitellmPayload(raw, { userFields: USER_FIELDS, nowMs: Date.UTC(2300, 0, 1), futureSkewMs: 300_000 });
        if (plan.kind !== 'event') return;
        expect(plan.occurredAt.toISOString()).toBe(plan.event.occurred_at);
        const body = { ...plan.event, contributor_id: contributorId };
        const billable = billableEvent(plan, contributorId);
        if (!(billable instanceof ProvenUsageEvent)) {
          expect(billable).toStrictEqual(body);
          return;
        }
        proven += 1;
        const expected = parseUsageEvent(body);
        expect(expected.success).toBe(true);
        if (!expected.success) return;
        expect(billable.input).toStrictEqual(expected.data);
        expect(JSON.stringify(billable.input)).toBe(JSON.stringify(expected.data));
        expect(billable.occurredAt.getTime()).toBe(Date.parse(expected.data.occurred_at!));
      }),
      { numRuns: 3000 },
    );
    expect(proven).toBeGreaterThan(300);
  });
});
