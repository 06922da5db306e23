import fc from 'fast-check';
import {
  StreamReassembler,
  reassembleSse,
  reassembleSseAsync,
  resolveLimits,
  toSchemaResult,
  type ReassembledStream,
  type ReassemblerLimits,
} from './sse-reassembler.js';
import { loadSseFixtures, splitAt, splitEvery, splitRandom, toBytes } from './testing/sse-test-helpers.js';

const fixtures = loadSseFixtures();
const RANDOM_SEEDS = [1, 7, 42, 1234, 20250914, 987654321];

function byName(prefix: string): Uint8Array {
  const fixture = fixtures.find((f) => f.name.startsWith(prefix));
  if (fixture === undefined) throw new Error(`fixture ${prefix} missing`);
  return fixture.body;
}

describe('SSE fixtures (test/fixtures/sse)', () => {
  it('has all 30 fixture cases, each with an expected.json', () => {
    expect(fixtures.map((f) => f.name.slice(0, 2))).toEqual([
      '01', '02', '03', '04', '05', '07', '09', '11', '12', '14', '15', '17', '19', '22', '24', '26', '28', '32',
      // provider usage conventions (pricing.md) and the two reassembler fixes
      '40', '41', '42', '43', '44', '45', '46', '47', '48', '49', '50', '51',
    ]);
  });

  it('the service tier each usage fixture names (the price variant unless the request names one)', () => {
    const tiers = Object.fromEntries(fixtures.filter((f) => f.name >= '40').map((f) => [f.name.slice(0, 2), reassembleSse(f.body).service_tier]));
    expect(tiers).toEqual({
      '40': 'default', '41': null, '42': 'standard', '43': null, '44': null, '45': null,
      '46': null, '47': 'on_demand', '48': null, '49': 'flex', '50': null, '51': null,
    });
  });

  describe.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const whole = reassembleSse(fixture.body);

    it('whole body as one chunk matches expected.json', () => {
      expect(toSchemaResult(whole)).toEqual(fixture.expected);
      // Exact key sets too: optional usage fields must be absent, not undefined.
      expect(JSON.parse(JSON.stringify(toSchemaResult(whole)))).toStrictEqual(fixture.expected);
    });

    it('one byte per chunk gives the same result', () => {
      expect(reassembleSse(splitEvery(fixture.body, 1))).toEqual(whole);
    });

    it.each(RANDOM_SEEDS)('random chunks of 1..17 bytes (seed %i) give the same result', (seed) => {
      expect(reassembleSse(splitRandom(fixture.body, seed))).toEqual(whole);
    });

    it('the body as a string chunk gives the same result', () => {
      expect(reassembleSse(new TextDecoder().decode(fixture.body))).toEqual(whole);
    });
  });
});

describe('errors reported outside expected.json (README table)', () => {
  it('12: ended without finish_reason or [DONE] is truncated, not an error', () => {
    const result = reassembleSse(byName('12'));
    expect(result).toMatchObject({ truncated: true, done: false, error: null, finish_reason: null });
  });

  it('26: provider error chunk with code server_error and its message', () => {
    const result = reassembleSse(byName('26'));
    expect(result.error).toEqual({
      code: 'server_error',
      message: 'Provider disconnected unexpectedly',
      source: 'provider',
    });
    expect(result.truncated).toBe(false);
  });

  it('28: `event: error` gives code upstream_timeout and ends before the later [DONE]', () => {
    const result = reassembleSse(byName('28'));
    expect(result.error).toEqual({ code: 'upstream_timeout', message: 'Upstream request timed out', source: 'event' });
    expect(result).toMatchObject({ truncated: false, done: false });
  });

  it.each(fixtures.filter((f) => !/^(12|26|28)-/.test(f.name)).map((f) => [f.name, f.body] as const))(
    '%s: completes with [DONE], no error, not truncated',
    (_name, body) => {
      expect(reassembleSse(body)).toMatchObject({ error: null, truncated: false, done: true });
    },
  );
});

describe('StreamReassembler API', () => {
  it('reports model, event count and bytes', () => {
    const body = byName('01');
    const result = reassembleSse(body);
    expect(result).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', events: 12, bytes: body.length });
  });

  it('end() is idempotent and push() after end() is ignored', () => {
    const reassembler = new StreamReassembler();
    reassembler.push(byName('01'));
    const first = reassembler.end();
    reassembler.push('data: {"choices":[{"index":0,"delta":{"content":"late"}}]}\n\n');
    expect(reassembler.end()).toBe(first);
  });

  it('ignores input after [DONE] but still counts its bytes', () => {
    const tail = 'data: {"choices":[{"index":0,"delta":{"content":"ignored"}}]}\n\n';
    const result = reassembleSse([byName('01'), toBytes(tail)]);
    expect(result.content).toBe('Hello! How can I help you today?');
    expect(result.bytes).toBe(byName('01').length + tail.length);
  });

  it('reassembleSseAsync consumes an async iterable', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield* splitEvery(byName('05'), 5);
    }
    expect(await reassembleSseAsync(chunks())).toEqual(reassembleSse(byName('05')));
  });

  it('an empty body is truncated', () => {
    expect(reassembleSse('')).toMatchObject({ content: '', truncated: true, error: null, events: 0 });
  });

  it('rejects invalid limit overrides (a programming error, not input data)', () => {
    expect(() => new StreamReassembler({ eventBytesMax: -1 })).toThrow(RangeError);
    expect(() => new StreamReassembler({ toolCallsMax: 1.5 })).toThrow(RangeError);
    expect(resolveLimits({ toolCallsMax: 3 }).toolCallsMax).toBe(3);
  });
});

describe('property: the result never depends on chunking', () => {
  const pieces = [
    'data: ', 'data:', 'event: error\n', 'event: message\n', ': keep-alive\n', 'id: 7\n', 'retry: 10\n',
    '\n', '\r', '\r\n', '\n\n', '[DONE]', 'not json', '中文', 'é', '😀', '\uFEFF', '  ',
    '{"model":"m","choices":[{"index":0,"delta":{"content":"héllo 😀"}}]}',
    '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    '{"choices":[{"index":1,"delta":{"content":"other"}}]}',
    '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\\"a\\":"}}]}}]}',
    '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"id":"g","function":{"name":"g","arguments":{"x":1}}}]}}]}',
    '{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
    '{"x_groq":{"usage":{"prompt_tokens":4,"completion_tokens":5,"total_tokens":9}}}',
    '{"error":{"code":500,"message":"boom"},"choices":[{"index":0,"finish_reason":"error"}]}',
    '{"error":{"code":"e","message":"from event"}}',
    '[1,2]',
  ];
  const tokenBody = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => toBytes(parts.join('')));
  const fixtureBody = fc.constantFrom(...fixtures.map((f) => f.body));
  const anyBody = fc.oneof(tokenBody, fixtureBody, fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'grapheme' }).map(toBytes));
  const smallLimits = fc.record(
    {
      eventBytesMax: fc.integer({ min: 0, max: 400 }),
      streamBytesMax: fc.integer({ min: 0, max: 3000 }),
      toolCallsMax: fc.integer({ min: 0, max: 3 }),
      toolArgumentsBytesMax: fc.integer({ min: 0, max: 20 }),
      contentBytesMax: fc.integer({ min: 0, max: 40 }),
    },
    { requiredKeys: [] },
  );

  function chunked(body: Uint8Array, offsets: number[], limits?: Partial<ReassemblerLimits>): ReassembledStream {
    return reassembleSse(
      splitAt(body, offsets.map((o) => o % (body.length + 1))),
      limits,
    );
  }

  it('any body, any cut points, default limits: same as the whole body', () => {
    fc.assert(
      fc.property(anyBody, fc.array(fc.nat(), { maxLength: 60 }), (body, offsets) => {
        expect(chunked(body, offsets)).toEqual(reassembleSse(body));
      }),
      { numRuns: 400, seed: 20250914 },
    );
  });

  it('any body, any cut points, small limits: same as the whole body, and never throws', () => {
    fc.assert(
      fc.property(anyBody, fc.array(fc.nat(), { maxLength: 60 }), smallLimits, (body, offsets, limits) => {
        expect(chunked(body, offsets, limits)).toEqual(reassembleSse(body, limits));
      }),
      { numRuns: 400, seed: 4242 },
    );
  });

  it('one byte per chunk equals the whole body for generated bodies', () => {
    fc.assert(
      fc.property(tokenBody, (body) => {
        expect(reassembleSse(splitEvery(body, 1))).toEqual(reassembleSse(body));
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
