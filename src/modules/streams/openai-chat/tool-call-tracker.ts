// Reassembles `delta.tool_calls` fragments of choice 0 (rules T1-T5 of test/fixtures/sse/README.md).
import {
  type ReassembledToolCall,
  type ReassemblerLimits,
  type StreamError,
  StreamErrorCode,
  isPlainObject,
  limitError,
  utf8ByteLength,
} from '../reassembler-types.js';

interface ToolCallState {
  index: number;
  id: string;
  name: string;
  argumentParts: string[];
  argumentsBytes: number;
}

export type ToolCallLimits = Pick<ReassemblerLimits, 'toolCallsMax' | 'toolArgumentsBytesMax'>;

const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

/**
 * Deepest nesting accepted in arguments. JSON.parse copes with any depth, but JSON.stringify
 * overflows the stack at a few thousand levels (here for object arguments, or downstream).
 */
export const ARGUMENTS_NESTING_MAX = 512;

export class ToolCallTracker {
  /** In order of creation. */
  private readonly calls: ToolCallState[] = [];
  private readonly callsById = new Map<string, ToolCallState>();
  /** The latest call that arrived with a given provider index (an index can be reused, T3). */
  private readonly callsByProviderIndex = new Map<number, ToolCallState>();
  private readonly usedIndexes = new Set<number>();
  private highestIndex = -1;

  constructor(private readonly limits: ToolCallLimits) {}

  /** Applies `delta.tool_calls`; returns a limit error when one is hit (the delta is then dropped). */
  applyDeltas(deltas: unknown): StreamError | null {
    if (!Array.isArray(deltas)) return null;
    for (const delta of deltas) {
      if (!isPlainObject(delta)) continue;
      const error = this.applyDelta(delta);
      if (error !== null) return error;
    }
    return null;
  }

  /** The calls sorted by index, with arguments parsed (T5). */
  finish(): ReassembledToolCall[] {
    return this.calls.map(toResult).sort((a, b) => a.index - b.index);
  }

  private applyDelta(delta: Record<string, unknown>): StreamError | null {
    const id = nonEmptyString(delta.id); // an id of "" counts as absent (T1)
    const providerIndex = readIndex(delta.index);
    const fn = isPlainObject(delta.function) ? delta.function : {};
    const name = nonEmptyString(fn.name);
    const call = this.findCall(id, providerIndex, name !== null) ?? this.createCall(providerIndex);
    if (call === null) {
      return limitError(
        StreamErrorCode.tooManyToolCalls,
        `more than ${this.limits.toolCallsMax} tool calls in one stream`,
      );
    }
    // id and name are set once, never concatenated; they may come after the first delta (T2).
    // A later, different id (a provider that renames the call mid-call) is kept as an alias,
    // so deltas that carry only that id still find the call.
    if (call.id === '' && id !== null) call.id = id;
    if (id !== null && !this.callsById.has(id)) this.callsById.set(id, call);
    if (call.name === '' && name !== null) call.name = name;
    return this.appendArguments(call, fn.arguments);
  }

  /**
   * Rule T1: by known id, else by provider index, else (no index) the latest call. An unknown id
   * starts a new call only when the delta also names a function: some providers change a call's
   * id mid-call, and a fragment without a name cannot begin a call (Ollama's reused indexes do
   * carry the name).
   */
  private findCall(id: string | null, providerIndex: number | null, named: boolean): ToolCallState | null {
    if (id !== null) {
      const known = this.callsById.get(id);
      if (known !== undefined) return known;
    }
    const continues = (call: ToolCallState | undefined) =>
      call !== undefined && (id === null || call.id === '' || !named) ? call : null;
    if (providerIndex !== null) return continues(this.callsByProviderIndex.get(providerIndex));
    return continues(this.calls.at(-1));
  }

  /** Rule T3: keep the provider index unless it is missing or already taken; then highest + 1. */
  private createCall(providerIndex: number | null): ToolCallState | null {
    if (this.calls.length >= this.limits.toolCallsMax) return null;
    const index =
      providerIndex !== null && !this.usedIndexes.has(providerIndex) ? providerIndex : this.highestIndex + 1;
    const call: ToolCallState = { index, id: '', name: '', argumentParts: [], argumentsBytes: 0 };
    this.calls.push(call);
    this.usedIndexes.add(index);
    this.highestIndex = Math.max(this.highestIndex, index);
    if (providerIndex !== null) this.callsByProviderIndex.set(providerIndex, call);
    return call;
  }

  /** Rule T4: append as sent, parse only at the end; an object is appended as its JSON text. */
  private appendArguments(call: ToolCallState, value: unknown): StreamError | null {
    if (value === undefined || value === null) return null;
    if (exceedsNesting(value, ARGUMENTS_NESTING_MAX)) {
      return limitError(
        StreamErrorCode.toolArgumentsTooDeep,
        `arguments of tool call ${call.index} nest deeper than ${ARGUMENTS_NESTING_MAX} levels`,
      );
    }
    const fragment = typeof value === 'string' ? value : JSON.stringify(value);
    if (fragment === '') return null;
    const bytes = utf8ByteLength(fragment);
    if (call.argumentsBytes + bytes > this.limits.toolArgumentsBytesMax) {
      return limitError(
        StreamErrorCode.toolArgumentsTooLarge,
        `arguments of tool call ${call.index} exceed ${this.limits.toolArgumentsBytesMax} bytes`,
      );
    }
    call.argumentParts.push(fragment);
    call.argumentsBytes += bytes;
    return null;
  }
}

function toResult(call: ToolCallState): ReassembledToolCall {
  const raw = call.argumentParts.join('');
  const parsed = parseArguments(raw);
  return {
    index: call.index,
    id: call.id,
    name: call.name,
    arguments_raw: raw,
    arguments: parsed,
    arguments_error: parsed === null,
  };
}

/** Rule T5: blank gives {}; anything but a JSON object gives null (no healing of partial JSON). */
export function parseArguments(raw: string): Record<string, unknown> | null {
  if (JSON_WHITESPACE_ONLY.test(raw)) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return isPlainObject(value) && !exceedsNesting(value, ARGUMENTS_NESTING_MAX) ? value : null;
  } catch {
    return null;
  }
}

/** Iterative, so measuring a deep value cannot overflow the stack itself. */
export function exceedsNesting(value: unknown, nestingMax: number): boolean {
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item.node !== 'object' || item.node === null) continue;
    if (item.depth > nestingMax) return true;
    for (const child of Object.values(item.node)) pending.push({ node: child, depth: item.depth + 1 });
  }
  return false;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A usable provider index is a non-negative safe integer; anything else counts as missing. */
function readIndex(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
