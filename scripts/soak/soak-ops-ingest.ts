// The soak's ingestion operations: every path an event reaches the ledger by (single, batch, SSE
// stream, the BullMQ queue, LiteLLM push and pull, the SDK gateway's outbox) and holds captured by
// an event. Each event is recorded before it is sent and marked accepted on the path's own
// acknowledgement; the invariants then expect it billed exactly once.
import { publishUsageEvent } from '../../src/queue/usage-events.producer.js';
import { litellmPayload, withUsage } from '../../test/support/litellm-payloads.js';
import { sleep } from '../lib/processes.js';
import { judgeIngest, occurredAt, recordEvent, usageBody, type SoakContext } from './soak-ops-context.js';
import type { PlannedEvent, PlannedOp } from './soak-schedule.js';
import { RESPONSE_FIXTURES, STREAM_FIXTURES } from './soak-stream-fixtures.js';

const QUEUE_RETRY_WINDOW_MS = 90_000;
const ACCEPTED_STATUSES = new Set(['priced', 'unpriced', 'duplicate']);

/** The LiteLLM deployment (model_info.id) of a contributor: mapped at setup. */
export const deploymentOf = (contributorId: string) => `soak-dep-${contributorId}`;

const ingestAnswerAccepted = (status: number) => status === 200 || status === 201 || status === 202;

export async function opSingle(ctx: SoakContext, op: Extract<PlannedOp, { op: 'single' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'single', at);
  const answer = await ctx.http.request('POST', '/v1/usage-events', { api: op.api, body: usageBody(op.event, at) });
  judgeIngest(ctx, record, answer.status, answer.json, ingestAnswerAccepted(answer.status));
}

export async function opBatch(ctx: SoakContext, op: Extract<PlannedOp, { op: 'batch' }>): Promise<void> {
  const bodies = op.events.map((event) => {
    const at = occurredAt(event);
    return { record: recordEvent(ctx, event, 'batch', at), body: usageBody(event, at) };
  });
  const answer = await ctx.http.request('POST', '/v1/usage-events/batch', { api: op.api, body: { events: bodies.map((b) => b.body) } });
  const results = (answer.json?.results ?? []) as Array<{ event_id: string; status: string }>;
  for (const [i, { record }] of bodies.entries()) {
    const result = answer.status === 200 ? results[i] : undefined;
    judgeIngest(ctx, record, result ? 200 : answer.status, result ?? answer.json, result !== undefined && ACCEPTED_STATUSES.has(result.status));
  }
}

export async function opStream(ctx: SoakContext, op: Extract<PlannedOp, { op: 'stream' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'stream', at);
  const fixture = STREAM_FIXTURES[op.format];
  const answer = await ctx.http.request('POST', `/v1/usage-events/stream?${formatQuery(op, at)}`, { api: op.api, raw: fixture.body(op.event.usage, op.event.model), contentType: 'text/event-stream' });
  judgeIngest(ctx, record, answer.status, answer.json, ingestAnswerAccepted(answer.status) && formatAnswered(ctx, op, answer.json));
}

/** A non-streamed response body of any of the four formats (POST /v1/usage-events/response). */
export async function opResponse(ctx: SoakContext, op: Extract<PlannedOp, { op: 'response' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'response', at);
  const fixture = RESPONSE_FIXTURES[op.format];
  const answer = await ctx.http.request('POST', `/v1/usage-events/response?${formatQuery(op, at)}`, { api: op.api, raw: fixture.body(op.event.usage, op.event.model), contentType: 'application/json' });
  judgeIngest(ctx, record, answer.status, answer.json, ingestAnswerAccepted(answer.status) && formatAnswered(ctx, op, answer.json));
}

function formatQuery(op: Extract<PlannedOp, { op: 'stream' | 'response' }>, at: string): URLSearchParams {
  const e = op.event;
  return new URLSearchParams({ event_id: e.event_id, user_id: e.user_id, contributor_id: e.contributor_id, model: e.model, occurred_at: at, ...(op.detect ? {} : { format: op.format }) });
}

/** The answer names the format sent (detected or given); a replayed event's answer may not carry it. */
function formatAnswered(ctx: SoakContext, op: Extract<PlannedOp, { op: 'stream' | 'response' }>, json: any): boolean {
  const format = json?.stream?.format;
  if (format === undefined || format === op.format) return true;
  ctx.fail('valid_input_accepted', `${op.op} ${op.event.event_id}: ${op.format} body${op.detect ? ' (detected)' : ''} answered as format ${format}`);
  return true;
}

export async function opQueue(ctx: SoakContext, op: Extract<PlannedOp, { op: 'queue' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'queue', at);
  const deadline = Date.now() + QUEUE_RETRY_WINDOW_MS;
  // Redis may be restarting: a gateway retries the add (the job id is the event id, so once).
  for (;;) {
    try {
      await publishUsageEvent(ctx.usageQueue, usageBody(op.event, at) as { event_id: string });
      judgeIngest(ctx, record, 200, null, true);
      return;
    } catch {
      if (Date.now() > deadline) return;
      await sleep(500);
    }
  }
}

function litellmBody(event: PlannedEvent, id: string, at: string): Record<string, unknown> {
  // LiteLLM's naive endTime (UTC, microseconds), as its logger writes it.
  const endTime = `${at.slice(0, 10)} ${at.slice(11, 23)}000`;
  const base = litellmPayload(id, {
    model_id: deploymentOf(event.contributor_id),
    endTime,
    startTime: endTime,
    metadata: { user_api_key_user_id: event.user_id, user_api_key_hash: `hash-${event.user_id}` },
  });
  return withUsage(base, event.model, { prompt_tokens: event.usage.prompt, completion_tokens: event.usage.completion, total_tokens: event.usage.prompt + event.usage.completion });
}

async function pushLitellm(ctx: SoakContext, api: number, event: PlannedEvent, id: string, at: string) {
  const answer = await ctx.http.request('POST', '/v1/integrations/litellm', { api, body: [litellmBody(event, id, at)] });
  const result = answer.status === 200 ? (answer.json?.results?.[0] as { status: string } | undefined) : undefined;
  return { answer, result };
}

export async function opLitellmPush(ctx: SoakContext, op: Extract<PlannedOp, { op: 'litellm_push' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'litellm_push', at);
  const { answer, result } = await pushLitellm(ctx, op.api, op.event, op.litellm_id, at);
  judgeIngest(ctx, record, result ? 200 : answer.status, result ?? answer.json, result !== undefined && ACCEPTED_STATUSES.has(result.status));
}

/** A row in LiteLLM's spend log, as its proxy writes it; the worker's pull must bill it (once, also when pushed too). */
export async function opLitellmPull(ctx: SoakContext, op: Extract<PlannedOp, { op: 'litellm_pull' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'litellm_pull', at);
  const e = op.event;
  const naive = at.slice(0, 23).replace('T', ' ');
  const row = {
    request_id: op.litellm_id,
    call_type: 'acompletion',
    api_key: `hash-${e.user_id}`,
    spend: 0.001,
    total_tokens: e.usage.prompt + e.usage.completion,
    prompt_tokens: e.usage.prompt,
    completion_tokens: e.usage.completion,
    startTime: naive,
    endTime: naive,
    model: e.model,
    model_id: deploymentOf(e.contributor_id),
    model_group: e.model,
    custom_llm_provider: 'openai',
    user: e.user_id,
    metadata: JSON.stringify({
      usage_object: { prompt_tokens: e.usage.prompt, completion_tokens: e.usage.completion, total_tokens: e.usage.prompt + e.usage.completion },
      model_map_information: { model_map_key: e.model, model_map_value: null },
      status: 'success',
    }),
    cache_hit: 'False',
    status: 'success',
  };
  const columns = Object.keys(row);
  const deadline = Date.now() + QUEUE_RETRY_WINDOW_MS;
  for (;;) {
    try {
      await ctx.stack.litellmDb.query(
        `INSERT INTO "LiteLLM_SpendLogs" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`,
        Object.values(row),
      );
      judgeIngest(ctx, record, 200, null, true);
      break;
    } catch {
      if (Date.now() > deadline) return;
      await sleep(500);
    }
  }
  if (op.also_push) {
    const { answer, result } = await pushLitellm(ctx, 0, e, op.litellm_id, at);
    ctx.checked('valid_input_accepted');
    if (answer.status !== 0 && answer.status < 500 && !(result && ACCEPTED_STATUSES.has(result.status))) {
      ctx.fail('valid_input_accepted', `litellm push of pulled ${e.event_id}: HTTP ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
    }
  }
}

export async function opSdkReport(ctx: SoakContext, op: Extract<PlannedOp, { op: 'sdk_report' }>): Promise<void> {
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'sdk', at);
  // The gateway may be restarting (kill_sdk): a caller retries; the outbox keeps what it took.
  const deadline = Date.now() + QUEUE_RETRY_WINDOW_MS;
  for (;;) {
    if (await ctx.stack.sdk.report(usageBody(op.event, at))) {
      judgeIngest(ctx, record, 200, null, true);
      return;
    }
    if (Date.now() > deadline) return;
    await sleep(500);
  }
}

export async function opHoldCapture(ctx: SoakContext, op: Extract<PlannedOp, { op: 'hold_capture' }>): Promise<void> {
  const hold = await ctx.http.request('POST', '/v1/holds', { api: op.api, body: { hold_id: op.hold_id, user_id: op.event.user_id, amount_usd: op.amount_usd, expires_in_seconds: 3600 } });
  ctx.checked('valid_input_accepted');
  if (hold.status !== 201 && hold.status !== 200) {
    if (hold.status !== 0 && hold.status < 500 && hold.status !== 402) ctx.fail('valid_input_accepted', `hold ${op.hold_id}: HTTP ${hold.status} ${JSON.stringify(hold.json).slice(0, 300)}`);
    return;
  }
  const at = occurredAt(op.event);
  const record = recordEvent(ctx, op.event, 'hold', at, op.hold_id);
  const answer = await ctx.http.request('POST', '/v1/usage-events', { api: 1 - op.api, body: usageBody(op.event, at, op.hold_id) });
  judgeIngest(ctx, record, answer.status, answer.json, ingestAnswerAccepted(answer.status));
}
