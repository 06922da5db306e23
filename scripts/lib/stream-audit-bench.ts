// The usage audit's cost (issue 27 "Performance"): realistic streamed completions posted to
// POST /v1/usage-events/stream, and what the audit leaves of them in Postgres. bench.ts runs the
// phases (audit off vs on, back to back; then the worker's audit of the audited streams).
import pg from 'pg';
import { Queue } from 'bullmq';
import { choiceChunk, sseBody } from '../../src/modules/streams/testing/sse-test-helpers.js';
import { completionCorpus, type Completion } from '../../src/modules/usage-audit/testing/audit-corpus.js';
import { countSample } from '../../src/modules/usage-audit/usage-audit-counter.js';
import { QUEUE_USAGE_AUDIT } from '../../src/queue/queue-names.js';
import { benchContributorId, benchUserId, BENCH_CONTRIBUTORS, BENCH_USERS, runLoad, type LoadResult } from './bench-http.js';

/** A model of the seeded LiteLLM catalog, counted by gpt-tokenizer (o200k_base). */
export const STREAM_AUDIT_MODEL = 'gpt-4o';
/** Distinct completions the bodies cycle through (English, code, JSON tool calls, CJK, reasoning). */
const CORPUS_SIZE = 400;
const CORPUS_SEED = 27;
const CREATED_S = 1_764_000_000;

/** One word (and its trailing space) per delta, like a provider streams roughly a token at a time. */
function deltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * An OpenAI-style stream of a completion (role delta, reasoning and content a word per chunk, tool
 * calls in argument pieces, finish, then the usage chunk of stream_options.include_usage), with
 * the completion tokens an honest provider would report (our own count plus 2 framing tokens).
 */
export function streamBodyOf(completion: Completion, index: number): { body: string; completionTokens: number } {
  const texts = [completion.content, completion.reasoning, ...completion.toolCalls.flatMap((t) => [t.name, t.arguments_raw])].filter((t) => t !== '');
  const counted = countSample({ event_id: `c${index}`, contributor_id: 'c', model: STREAM_AUDIT_MODEL, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts })?.countedTokens ?? 0;
  const completionTokens = counted + 2;
  const base = { id: `chatcmpl-bench${index}`, created: CREATED_S + index, model: 'gpt-4o-2024-08-06', system_fingerprint: 'fp_bench' };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => choiceChunk(delta, { ...base, logprobs: null, ...extra });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of deltas(completion.reasoning)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of deltas(completion.content)) chunks.push(chunk({ content: piece }));
  completion.toolCalls.forEach((call, i) => {
    chunks.push(chunk({ tool_calls: [{ index: i, id: `call_${index}_${i}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of call.arguments_raw.match(/[\s\S]{1,12}/g) ?? []) chunks.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, { finish_reason: completion.toolCalls.length > 0 ? 'tool_calls' : 'stop' }));
  chunks.push({ object: 'chat.completion.chunk', ...base, choices: [], usage: { prompt_tokens: 350 + (index % 900), completion_tokens: completionTokens, total_tokens: 350 + (index % 900) + completionTokens } });
  return { body: sseBody(chunks), completionTokens };
}

export function streamBodies(): { bodies: string[]; meanBytes: number; meanCompletionTokens: number } {
  const built = completionCorpus(CORPUS_SIZE, CORPUS_SEED).map((c, i) => streamBodyOf(c, i));
  const bodies = built.map((b) => b.body);
  return {
    bodies,
    meanBytes: bodies.reduce((a, b) => a + Buffer.byteLength(b), 0) / bodies.length,
    meanCompletionTokens: built.reduce((a, b) => a + b.completionTokens, 0) / built.length,
  };
}

/** POST /v1/usage-events/stream: `amount` streams (fresh event ids), cycling through the bodies. */
export function runStreamLoad(options: { baseUrl: string; key: string; connections: number; amount: number; prefix: string; bodies: string[] }): Promise<LoadResult> {
  let n = 0;
  return runLoad({
    baseUrl: options.baseUrl,
    key: options.key,
    connections: options.connections,
    durationS: 0,
    amount: options.amount,
    method: 'POST',
    path: '/v1/usage-events/stream',
    contentType: 'text/event-stream',
    body: () => options.bodies[n % options.bodies.length]!,
    pathFor: () => {
      const i = n++;
      return `/v1/usage-events/stream?event_id=${options.prefix}-${i}&user_id=${benchUserId(i % BENCH_USERS)}&contributor_id=${benchContributorId((i * 31) % BENCH_CONTRIBUTORS)}&model=${STREAM_AUDIT_MODEL}`;
    },
    countPriced: (status, body) => (status === 201 && body.includes('"status":"priced"') ? { priced: 1, notPriced: 0 } : { priced: 0, notPriced: 1 }),
  });
}

export async function auditSampleCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM usage_audit_samples')).rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** The audit queue of the stack (paused while streams are ingested; the warm-up's jobs dropped). */
export function auditQueue(redisUrl: string, prefix: string): Queue {
  return new Queue(QUEUE_USAGE_AUDIT, { connection: { url: redisUrl }, prefix });
}

/** Streams waiting in the audit queue (each count job carries up to 200). */
export async function waitingAuditStreams(queue: Queue): Promise<number> {
  const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed'], 0, -1);
  return jobs.reduce((sum, job) => sum + ((job.data as { samples?: unknown[] }).samples?.length ?? 0), 0);
}
