import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { parseLitellmBody, UNREADABLE_LINE } from './litellm-body.js';
import { compileSelection, selectionOfPaths } from './litellm-json-selection.js';
import { litellmPayloadSelection, planLitellmPayload } from './litellm-payload.js';

const DEFAULT_USER_FIELDS = ['metadata.user_api_key_user_id', 'metadata.user_api_key_team_id', 'metadata.user_api_key_hash'];
const OTHER_USER_FIELDS = ['end_user', 'metadata.requester.id', 'response.user'];
const bytes = (text: string) => Buffer.from(text, 'utf8');
const read = (text: string, paths: string[]) => parseLitellmBody(bytes(text), compileSelection(selectionOfPaths(paths)));
const LONG = 'L'.repeat(1500);

describe('the selective JSON reader of the LiteLLM push', () => {
  it('builds only the selected keys; the last of duplicate keys wins; "__proto__" stays an own key', () => {
    expect(read('[{"id":"a","messages":[{"content":"secret"}],"response":{"usage":{"prompt_tokens":1},"choices":[1]}}]', ['id', 'response.usage'])).toEqual([
      { id: 'a', response: { usage: { prompt_tokens: 1 } } },
    ]);
    expect(read('{"id":"a","id":{"x":1},"id":"b"}', ['id'])).toEqual([{ id: 'b' }]);
    const [proto] = read('[{"__proto__":{"polluted":1}}]', ['__proto__.polluted'])! as Array<Record<string, unknown>>;
    expect(Object.hasOwn(proto!, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // An escaped key names the same field as JSON.parse decodes it.
    expect(read('[{"\\u0069d":"a"}]', ['id'])).toEqual([{ id: 'a' }]);
  });

  it('reads a non-object payload as JSON.parse does, an array where an object is selected as []', () => {
    expect(read('[1,"x",null,true,[{"id":"a"}]]', ['id'])).toEqual([1, 'x', null, true, []]);
    expect(read('[{"response":[{"usage":1}],"id":-0.5e1}]', ['id', 'response.usage'])).toEqual([{ response: [], id: -5 }]);
  });

  it('never decodes a long string: read or not, it is ""; no text of an unread part is kept', () => {
    const huge = 'secret '.repeat(1_000_000);
    const body = JSON.stringify([{ id: 'a', model: LONG, messages: [{ content: huge }], response: { usage: { prompt_tokens: 1, note: LONG }, choices: [{ message: { content: huge } }] } }]);
    const entries = parseLitellmBody(bytes(body), litellmPayloadSelection(DEFAULT_USER_FIELDS))!;
    expect(entries).toEqual([{ id: 'a', model: '', response: { usage: { prompt_tokens: 1, note: '' } } }]);
    expect(JSON.stringify(entries).length).toBeLessThan(100);
  });

  it('answers null (a 400) to a body whose structure is not JSON; a payload whose read fields are not JSON text is its own unreadable entry', () => {
    const selection = ['id', 'response.usage', 'metadata.user'];
    const refused = [
      '[{"id":"a"}',
      '[{"id":"a"},]',
      '[{"id":"a",}]',
      '[{"id" "a"}]',
      '[{"id":"a""m":1}]',
      '[{"m":[1,2}]',
      '[{"m":{"a":1]}]',
      '[{"m":01}]',
      '[{"m":1.}]',
      '[{"m":-}]',
      '[{"m":1e}]',
      '[{"m":+1}]',
      '[{"m":tru}]',
      '[{"m":nul}]',
      '[{"m":NaN}]',
      '[{"m":"unterminated}]',
      '[{"id":"a"}] x',
      '[{"response":{"usage":{"prompt_tokens":1,}}}]',
      `[{"m":[${'['.repeat(100_000)}]}]`,
    ];
    for (const text of refused) expect([text.slice(0, 60), read(text, selection)]).toEqual([text.slice(0, 60), null]);
    // The structure is JSON but a field the mapping reads is not JSON text: only that payload is lost.
    const unreadable = ['{"id":"bad \\x escape"}', '{"id":"raw \u0001 control"}', '{"response":{"usage":{"note":"\\q"}}}', '{"metadata":{"user":"\\ud83"}}'];
    for (const payload of unreadable) expect(read(`[{"id":"ok"},${payload}]`, selection)).toEqual([{ id: 'ok' }, UNREADABLE_LINE]);
  });

  it('reads past any nesting depth without recursion', () => {
    const deep = `[{"id":"a","m":${'['.repeat(200_000)}${']'.repeat(200_000)}}]`;
    expect(read(deep, ['id'])).toEqual([{ id: 'a' }]);
    // A read value nested as deep: built to a shallow depth, the rest parsed as before.
    const deepRead = read(`[{"response":{"usage":${'['.repeat(200_000)}${']'.repeat(200_000)}}}]`, ['response.usage']) as Array<{ response: { usage: unknown } }>;
    let depth = 0;
    for (let v = deepRead[0]!.response.usage; Array.isArray(v) && v.length > 0; v = v[0]) depth += 1;
    expect(depth).toBe(200_000 - 1);
  });

  it('delimits the strings of unread parts without checking their text (nothing reads it)', () => {
    expect(read('[{"id":"a","messages":[{"content":"bad \\x escape, raw \u0001 control"}]}]', ['id'])).toEqual([{ id: 'a' }]);
    expect(read('[{"id":"a\\\\","m":"x\\"y\\\\"}]', ['id'])).toEqual([{ id: 'a\\' }]);
  });

  it('builds a whole read value (response.usage) as JSON.parse of its skeleton does, at any depth (property)', () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'prompt_tokens', 'a"b', 'é', 'k'.repeat(1100)));
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.constantFrom(LONG, 'a\\"b\n', '\u0000'), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(null, true, false, -0, 1e300));
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(key, tie('tree'), { maxKeys: 4 })),
    }));
    const deep = fc.integer({ min: 30, max: 40 }).map((depth) => JSON.parse(`${'[{"k":'.repeat(depth)}1${'}]'.repeat(depth)}`) as unknown);
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: tree }, { weight: 1, arbitrary: deep }), fc.constantFrom(0, 1), (usage, indent) => {
        const text = JSON.stringify([{ id: 'a', response: { usage, choices: [] } }], null, indent);
        const [whole] = parseLitellmBody(bytes(text)) as Array<{ response: { usage: unknown } }>;
        const [selected] = read(text, ['response.usage']) as Array<{ response: { usage: unknown } }>;
        expect(isDeepStrictEqual(selected!.response.usage, whole!.response.usage)).toBe(true);
        expect(JSON.stringify(selected!.response.usage)).toBe(JSON.stringify(whole!.response.usage));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every cut of a JSON array body (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }), fc.nat(), (values, cutAt) => {
        const text = JSON.stringify(values);
        const cut = text.slice(0, 1 + (cutAt % (text.length - 1)));
        return read(cut, ['id', 'a.b']) === null;
      }),
    );
  });
});

// Payload-like values: the fields the mapping reads, with right and wrong types, among unread ones.
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', 'gpt-4o', 'acompletion', 'failure', 'dep-1', 'u-1', LONG, 'a\\"b', '\u00e9\u{1f600}', '2026-11-29 10:00:00.123456'));
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(null, true, false, 1764496800.25, 1e300, -0));
const anyValue = fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const usage = fc.oneof(
  anyValue,
  fc.record(
    {
      prompt_tokens: fc.oneof(fc.nat(5000), scalar),
      completion_tokens: fc.oneof(fc.nat(5000), scalar),
      total_tokens: fc.nat(10000),
      prompt_tokens_details: fc.record({ cached_tokens: fc.nat(100), web_search_requests: fc.nat(3) }, { requiredKeys: [] }),
      completion_tokens_details: fc.record({ reasoning_tokens: fc.nat(100) }, { requiredKeys: [] }),
      input_tokens: fc.nat(5000),
      output_tokens: fc.nat(5000),
    },
    { requiredKeys: [] },
  ),
);
const payloadArbitrary = fc.record(
  {
    id: text,
    status: fc.oneof(fc.constantFrom('success', 'failure'), scalar),
    cache_hit: fc.oneof(fc.boolean(), scalar),
    call_type: fc.oneof(fc.constantFrom('acompletion', 'embedding', 'aspeech'), scalar),
    endTime: fc.oneof(fc.double({ min: 946_684_800, max: 7_258_118_400, noNaN: true }), fc.constantFrom('2026-11-29 10:00:00.123456', '2026-11-29T10:00:00Z'), scalar),
    model: text,
    model_id: fc.oneof(text, scalar),
    model_map_information: fc.oneof(fc.record({ model_map_key: text, model_map_value: anyValue }, { requiredKeys: [] }), anyValue),
    hidden_params: fc.oneof(fc.record({ litellm_model_name: text, model_id: text, response_cost: scalar }, { requiredKeys: [] }), anyValue),
    metadata: fc.oneof(
      fc.record({ user_api_key_user_id: fc.oneof(text, scalar), user_api_key_team_id: text, user_api_key_hash: text, requester: fc.oneof(fc.record({ id: text }), anyValue) }, { requiredKeys: [] }),
      anyValue,
    ),
    end_user: text,
    response: fc.oneof(fc.record({ usage, service_tier: fc.oneof(fc.constantFrom('flex', 'default', 'priority'), scalar), user: text, choices: anyValue }, { requiredKeys: [] }), anyValue),
    messages: fc.array(fc.record({ role: text, content: fc.oneof(text, anyValue) }), { maxLength: 3 }),
    prompt_tokens: fc.oneof(fc.nat(5000), scalar),
    completion_tokens: fc.oneof(fc.nat(5000), scalar),
    response_cost: scalar,
  },
  { requiredKeys: [] },
);
const body = fc.tuple(fc.array(fc.oneof({ weight: 9, arbitrary: payloadArbitrary }, { weight: 1, arbitrary: anyValue }), { maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 3 }));

describe('the push reads each payload as the whole body read by JSON.parse would map it', () => {
  it.each([[DEFAULT_USER_FIELDS], [OTHER_USER_FIELDS]])('for user fields %j (property)', (userFields) => {
    const selection = litellmPayloadSelection(userFields);
    fc.assert(
      fc.property(body, ([payloads, extra]) => {
        // Unread keys beside the read ones, as LiteLLM adds fields over its versions.
        const text = JSON.stringify(payloads.map((p) => (typeof p === 'object' && p !== null && !Array.isArray(p) ? { ...extra, ...p } : p)));
        const whole = parseLitellmBody(bytes(text))!;
        const selected = parseLitellmBody(bytes(text), selection)!;
        expect(selected).toHaveLength(whole.length);
        whole.forEach((entry, i) => {
          const [expected, actual] = [planLitellmPayload(entry, { userFields }), planLitellmPayload(selected[i], { userFields })];
          if (!isDeepStrictEqual(expected, actual)) throw new Error(`payload ${i}: ${JSON.stringify(expected)} != ${JSON.stringify(actual)}`);
        });
      }),
      { numRuns: 300 },
    );
  });
});
