import { reassembleSse } from '../sse-reassembler.js';
import { choiceChunk, sseBody } from '../testing/sse-test-helpers.js';
import { ARGUMENTS_NESTING_MAX, ToolCallTracker, exceedsNesting, parseArguments } from './tool-call-tracker.js';

type Delta = Record<string, unknown>;

/** One chunk per delta array. */
function reassembleCalls(...deltas: Delta[][]) {
  const chunks = deltas.map((toolCalls) => choiceChunk({ tool_calls: toolCalls }));
  return reassembleSse(sseBody([...chunks, choiceChunk({}, { finish_reason: 'tool_calls' })]));
}

const fn = (name: string | undefined, args?: unknown) => ({ function: { name, arguments: args } });

/** index, id, name and arguments_raw of each call. */
function summary(result: ReturnType<typeof reassembleCalls>) {
  return result.tool_calls.map((c) => [c.index, c.id, c.name, c.arguments_raw]);
}

describe('finding the call a delta belongs to (T1)', () => {
  it('an id of "" counts as absent and the delta continues the call at its index', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'call_a', type: 'function', ...fn('f', '') }],
      [{ index: 0, id: '', ...fn('', '{"x"') }],
      [{ index: 0, id: '', ...fn(undefined, ':1}') }],
    );
    expect(summary(result)).toEqual([[0, 'call_a', 'f', '{"x":1}']]);
    expect(result.tool_calls[0]?.arguments).toEqual({ x: 1 });
  });

  it('a known id wins over the index', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'a', ...fn('f', '{') }],
      [{ index: 1, id: 'b', ...fn('g', '{') }],
      [{ index: 5, id: 'a', ...fn(undefined, '}') }],
    );
    expect(summary(result)).toEqual([
      [0, 'a', 'f', '{}'],
      [1, 'b', 'g', '{'],
    ]);
  });

  it('no index and no id: the fragment goes to the most recent call', () => {
    const result = reassembleCalls(
      [{ id: 'g1', ...fn('f', '{"a":') }],
      [{ id: 'g2', ...fn('g', '{"b":') }],
      [fn(undefined, '2}')],
    );
    expect(summary(result)).toEqual([
      [0, 'g1', 'f', '{"a":'],
      [1, 'g2', 'g', '{"b":2}'],
    ]);
  });

  it('no index and no id before any call starts call 0', () => {
    expect(summary(reassembleCalls([fn('f', '{}')]))).toEqual([[0, '', 'f', '{}']]);
  });
});

describe('id and name (T2)', () => {
  it('are set once, never concatenated, repeats and later different values ignored', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'x1', type: 'function', name: null, ...fn('read', '{') }],
      [{ index: 0, id: 'x1', type: 'function', name: null, ...fn('read', '}') }],
      [{ index: 0, ...fn('other', '') }],
    );
    expect(summary(result)).toEqual([[0, 'x1', 'read', '{}']]);
  });

  it('may arrive after the first delta', () => {
    const result = reassembleCalls(
      [{ index: 0, ...fn(undefined, '{"q":') }],
      [{ index: 0, id: 'late_id', ...fn('late_name', '"v"}') }],
    );
    expect(summary(result)).toEqual([[0, 'late_id', 'late_name', '{"q":"v"}']]);
  });
});

describe('indexes (T3)', () => {
  it('keeps provider indexes, also when they start at 1 or have gaps', () => {
    const result = reassembleCalls([{ index: 2, id: 'c', ...fn('h', '{}') }], [{ index: 1, id: 'b', ...fn('g', '{}') }]);
    expect(result.tool_calls.map((c) => c.index)).toEqual([1, 2]);
  });

  it('an index reused with a different id (Ollama) starts a new call at highest + 1', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'o1', ...fn('f', '{"n":1}') }],
      [{ index: 0, id: 'o2', ...fn('f', '{"n":2}') }],
      [{ index: 0, id: 'o3', ...fn('f', '{"n":') }],
      [{ index: 0, ...fn(undefined, '3}') }], // continues the latest call that used index 0
    );
    expect(summary(result)).toEqual([
      [0, 'o1', 'f', '{"n":1}'],
      [1, 'o2', 'f', '{"n":2}'],
      [2, 'o3', 'f', '{"n":3}'],
    ]);
  });

  it('an id changed mid-call without a name continues the call (a new call needs function.name)', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'call_1', type: 'function', ...fn('get_weather', '') }],
      [{ index: 0, id: 'call_1b', ...fn(undefined, '{"city":') }], // same call, the provider renamed its id
      [{ index: 0, id: 'call_1c', ...fn(undefined, '"Paris"}') }],
      [{ index: 1, id: 'call_2', ...fn('get_time', '{}') }],
      [{ id: 'call_1b', ...fn(undefined, '') }], // the renamed id still finds the first call
    );
    expect(summary(result)).toEqual([
      [0, 'call_1', 'get_weather', '{"city":"Paris"}'],
      [1, 'call_2', 'get_time', '{}'],
    ]);
    expect(result.tool_calls[0]?.arguments).toEqual({ city: 'Paris' });
  });

  it('an unknown id without index or name continues the most recent call', () => {
    const result = reassembleCalls([{ id: 'g1', ...fn('f', '{"a":') }], [{ id: 'g1-next', ...fn(undefined, '1}') }]);
    expect(summary(result)).toEqual([[0, 'g1', 'f', '{"a":1}']]);
  });

  it('a changed id with a name at the same index is still a new call', () => {
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', '{"n":') }], [{ index: 0, id: 'b', ...fn('f', '{}') }]);
    expect(summary(result)).toEqual([
      [0, 'a', 'f', '{"n":'],
      [1, 'b', 'f', '{}'],
    ]);
  });

  it('a missing index (Gemini) gives highest + 1 in arrival order', () => {
    const result = reassembleCalls([{ index: 3, id: 'p', ...fn('f', '{}') }], [{ id: 'q', ...fn('g', '{}') }, { id: 'r', ...fn('h', '{}') }]);
    expect(result.tool_calls.map((c) => [c.index, c.id])).toEqual([
      [3, 'p'],
      [4, 'q'],
      [5, 'r'],
    ]);
  });

  it('a provider index already given to a synthesised call is not used twice', () => {
    const result = reassembleCalls(
      [{ index: 0, id: 'a', ...fn('f', '{}') }],
      [{ index: 0, id: 'b', ...fn('f', '{}') }], // synthesised 1
      [{ index: 1, id: 'c', ...fn('f', '{}') }], // 1 is taken: 2
    );
    expect(result.tool_calls.map((c) => [c.index, c.id])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
  });

  it('a negative, fractional or non-number index counts as missing', () => {
    const result = reassembleCalls([{ index: -1, id: 'a', ...fn('f', '{}') }], [{ index: '1', id: 'b', ...fn('g', '{}') }], [{ index: 0.5, id: 'c', ...fn('h', '{}') }]);
    expect(result.tool_calls.map((c) => [c.index, c.id])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
  });
});

describe('arguments (T4, T5)', () => {
  it('are appended verbatim and parsed only at the end, even when a prefix already parses', () => {
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', '{"a":1}') }], [{ index: 0, ...fn(undefined, '{"b":2}') }]);
    expect(result.tool_calls[0]).toMatchObject({ arguments_raw: '{"a":1}{"b":2}', arguments: null, arguments_error: true });
  });

  it('an arguments JSON object is appended as JSON.stringify(obj)', () => {
    const result = reassembleCalls([{ index: 0, id: 'm', ...fn('bash', { command: 'ls', timeout: 30 }) }]);
    expect(result.tool_calls[0]).toMatchObject({
      arguments_raw: '{"command":"ls","timeout":30}',
      arguments: { command: 'ls', timeout: 30 },
      arguments_error: false,
    });
  });

  it.each([
    ['[1]', true],
    ['3', true],
    ['"text"', true],
    ['null', true],
    ['true', true],
    ['{"a":', true],
    ['{"a":1} trailing', true],
  ])('arguments_raw %j is flagged: arguments null, raw kept', (raw, flagged) => {
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', raw) }]);
    expect(result.tool_calls[0]).toMatchObject({ arguments_raw: raw, arguments: null, arguments_error: flagged });
  });

  it.each(['', ' ', '\n\t \r\n'])('blank arguments_raw %j gives {} without error', (raw) => {
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', raw) }]);
    expect(result.tool_calls[0]).toMatchObject({ arguments_raw: raw, arguments: {}, arguments_error: false });
  });

  it('an array arguments value is appended as JSON and flagged', () => {
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', [1, 2]) }]);
    expect(result.tool_calls[0]).toMatchObject({ arguments_raw: '[1,2]', arguments: null, arguments_error: true });
  });

  it('parseArguments keeps object values and their own __proto__ keys as plain data', () => {
    expect(parseArguments(' {"a":[1,{"b":null}]} ')).toEqual({ a: [1, { b: null }] });
    const parsed = parseArguments('{"__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('ToolCallTracker limits', () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

  it(`arguments nested deeper than ${ARGUMENTS_NESTING_MAX} levels are flagged, so JSON.stringify stays safe`, () => {
    expect(exceedsNesting(JSON.parse(nested(ARGUMENTS_NESTING_MAX)), ARGUMENTS_NESTING_MAX)).toBe(false);
    expect(parseArguments(nested(ARGUMENTS_NESTING_MAX))).not.toBeNull();
    const deep = nested(20000);
    expect(parseArguments(deep)).toBeNull();
    const result = reassembleCalls([{ index: 0, id: 'a', ...fn('f', deep) }]);
    expect(result.tool_calls[0]).toMatchObject({ arguments: null, arguments_error: true });
    expect(() => JSON.stringify(result)).not.toThrow();
  });

  it('an object arguments value nested too deep is a limit error, not a throw', () => {
    const body = `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":${nested(20000)}}}]}}]}\n\n`;
    expect(reassembleSse(body).error).toMatchObject({ code: 'tool_arguments_too_deep', source: 'limit' });
  });

  it('stops at toolCallsMax with too_many_tool_calls', () => {
    const tracker = new ToolCallTracker({ toolCallsMax: 2, toolArgumentsBytesMax: 100 });
    expect(tracker.applyDeltas([{ index: 0, id: 'a' }, { index: 1, id: 'b' }])).toBeNull();
    expect(tracker.applyDeltas([{ index: 2, id: 'c' }])).toMatchObject({ code: 'too_many_tool_calls', source: 'limit' });
    expect(tracker.finish().map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('rejects a fragment that would pass toolArgumentsBytesMax (UTF-8 bytes)', () => {
    const tracker = new ToolCallTracker({ toolCallsMax: 2, toolArgumentsBytesMax: 4 });
    expect(tracker.applyDeltas([{ index: 0, function: { arguments: 'é' } }])).toBeNull();
    expect(tracker.applyDeltas([{ index: 0, function: { arguments: 'é' } }])).toBeNull();
    expect(tracker.applyDeltas([{ index: 0, function: { arguments: 'x' } }])).toMatchObject({
      code: 'tool_arguments_too_large',
    });
    expect(tracker.finish()[0]?.arguments_raw).toBe('éé');
  });
});
