// What every operation and fault of the soak runs with: the stack, the HTTP client, the soak's
// record, the usage queue as a gateway publishes to it, and where a broken invariant is reported.
import type { Queue } from 'bullmq';
import type { SoakHttp } from './soak-http.js';
import type { EventPath, EventRecord, SoakRecord } from './soak-record.js';
import type { PlannedEvent } from './soak-schedule.js';
import type { SoakStack } from './soak-stack.js';

export interface SoakContext {
  seed: number;
  stack: SoakStack;
  http: SoakHttp;
  record: SoakRecord;
  usageQueue: Queue;
  /** The step running now. */
  step: number;
  /** A broken invariant found while running an operation (e.g. a hold race that overspent). */
  fail(invariant: string, message: string): void;
  /** Counts a check made while running an operation. */
  checked(invariant: string): void;
  log(line: string): void;
}

/** The instant a planned event occurs at, as the soak records and sends it. */
export function occurredAt(event: PlannedEvent): string {
  return 'at' in event.when ? event.when.at : new Date(Date.now() + event.when.offset_ms).toISOString();
}

/** Records the event before it is sent (state unknown until the service or the outbox takes it). */
export function recordEvent(ctx: SoakContext, event: PlannedEvent, path: EventPath, at: string, holdId?: string, keyId?: string): EventRecord {
  const occurredMs = Date.parse(at);
  const record: EventRecord = {
    event_id: event.event_id,
    user_id: event.user_id,
    contributor_id: event.contributor_id,
    model: event.model,
    occurredAt: at,
    occurredMs,
    usage: event.usage,
    path,
    state: 'unknown',
    acceptedStep: ctx.step,
    holdId,
    keyId,
  };
  ctx.record.events.set(event.event_id, record);
  ctx.record.maxOccurredMs = Math.max(ctx.record.maxOccurredMs, occurredMs);
  return record;
}

export function usageBody(event: PlannedEvent, at: string, holdId?: string, keyId?: string): Record<string, unknown> {
  return {
    event_id: event.event_id,
    user_id: event.user_id,
    contributor_id: event.contributor_id,
    model: event.model,
    occurred_at: at,
    usage: { prompt_tokens: event.usage.prompt, completion_tokens: event.usage.completion, cached_tokens: event.usage.cached, reasoning_tokens: 0 },
    ...(holdId ? { hold_id: holdId } : {}),
    ...(keyId ? { key_id: keyId } : {}),
  };
}

/** An answer to valid input that is neither accepted nor a fault's 503 breaks "valid input is taken". */
export function judgeIngest(ctx: SoakContext, record: EventRecord, status: number, json: any, accepted: boolean): void {
  ctx.checked('valid_input_accepted');
  if (accepted) {
    record.state = 'accepted';
    record.acceptedStep = ctx.step;
    return;
  }
  if (status === 0 || status >= 500) return; // unknown: no answer within the retry window
  record.state = 'refused';
  ctx.fail('valid_input_accepted', `${record.path} ${record.event_id}: HTTP ${status} ${JSON.stringify(json).slice(0, 300)}`);
}
