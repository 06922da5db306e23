// The usage audit's prompt and reasoning ratios (api.md "What a contributor's upstream claims is not
// believed past what the gateway asked", issue 34 item 12): a contributor whose upstream reports
// 1.3x the prompt tokens the gateway counted (the stream's `prompt_tokens` parameter), and one that
// reports 1.3x the hidden reasoning tokens, were never flagged (only completion inflation was).
// Through POST /v1/usage-events/stream and the real worker; honest contributors are not flagged.
// Statistical power (events to flag at realistic noise) is in the figures (docs/usage-audit.md);
// here the reasoning spread is a calm one (sigma 0.3) so the population stays small.
import { choiceChunk, sseBody } from '../../src/modules/streams/testing/sse-test-helpers.js';
import { completionCorpus, honestHiddenReasoning, honestPrompt, honestReport } from '../../src/modules/usage-audit/testing/audit-corpus.js';
import { countSample } from '../../src/modules/usage-audit/usage-audit-counter.js';
import { UsageAuditProducer } from '../../src/modules/usage-audit/usage-audit.producer.js';
import type { UsageAuditService } from '../../src/modules/usage-audit/usage-audit.service.js';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { GPT4O } from '../support/billing-fixtures.js';
import type { TestApp } from '../support/test-app.js';
import { waitFor, type TestWorker } from '../support/test-worker.js';
import { postAndCount, startAuditStack } from './support/audit-stack.js';

const HONEST = ['h1', 'h2', 'h3', 'h4', 'h5'];
const PROMPT_INFLATOR = 'x-prompt';
const REASONING_INFLATOR = 'x-reasoning';
const EVENTS_EACH = 100;

let t: TestApp;
let worker: TestWorker;
let audit: UsageAuditService;

beforeAll(async () => {
  ({ t, worker, audit } = await startAuditStack('usage_audit_ratios', {}, { userCreditUsd: '10000', contributors: [...HONEST, PROMPT_INFLATOR, REASONING_INFLATOR] }));
}, 60_000);
afterAll(async () => {
  await worker?.close();
  await t?.close();
});

/** A completion whose reasoning stays hidden: visible content and tool calls, then usage with reasoning_tokens. */
function streamOf(completion: ReturnType<typeof completionCorpus>[number], usage: { prompt: number; visible: number; reasoning: number }): string {
  const chunks: unknown[] = [];
  for (const piece of completion.content.match(/[\s\S]{1,80}/g) ?? []) chunks.push(choiceChunk({ content: piece }, { model: 'gpt-4o' }));
  completion.toolCalls.forEach((call, index) =>
    chunks.push(choiceChunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments_raw } }] }, { model: 'gpt-4o' })),
  );
  chunks.push(choiceChunk({}, { model: 'gpt-4o', finish_reason: completion.toolCalls.length ? 'tool_calls' : 'stop' }));
  const completionTokens = usage.visible + usage.reasoning;
  chunks.push({
    object: 'chat.completion.chunk',
    model: 'gpt-4o',
    choices: [],
    usage: { prompt_tokens: usage.prompt, completion_tokens: completionTokens, total_tokens: usage.prompt + completionTokens, completion_tokens_details: { reasoning_tokens: usage.reasoning } },
  });
  return sseBody(chunks);
}

describe('usage audit: prompt and reasoning ratios', () => {
  it('flags the contributor reporting 1.3x the gateway\'s prompt count and the one reporting 1.3x hidden reasoning, by those ratios only; no honest one', async () => {
    const corpus = completionCorpus(400, 19).map((c) => ({ ...c, reasoning: '' }));
    const next = seededRandom(5);
    const posts: Array<() => Promise<unknown>> = [];
    for (let n = 0; n < EVENTS_EACH; n += 1) {
      for (const id of [...HONEST, PROMPT_INFLATOR, REASONING_INFLATOR]) {
        const completion = corpus[Math.floor(next() * corpus.length)]!;
        const texts = [completion.content, ...completion.toolCalls.flatMap((c) => [c.name, c.arguments_raw])].filter((x) => x !== '');
        const counted = countSample({ event_id: 'x', contributor_id: id, model: GPT4O, occurred_at: new Date().toISOString(), reported_tokens: 0, texts })!.countedTokens;
        const prompt = honestPrompt(next);
        const reasoning = honestHiddenReasoning(counted, next, 2, 0.3);
        const body = streamOf(completion, {
          prompt: id === PROMPT_INFLATOR ? Math.round(prompt.reported * 1.3) : prompt.reported,
          visible: honestReport(counted, completion.kind, next),
          reasoning: id === REASONING_INFLATOR ? Math.round(reasoning * 1.3) : reasoning,
        });
        const query = new URLSearchParams({ event_id: `${id}-${n}`, user_id: 'u_a', contributor_id: id, model: GPT4O, prompt_tokens: String(prompt.gateway) });
        posts.push(() => t.admin(t.http.post(`/v1/usage-events/stream?${query}`)).set('Content-Type', 'text/event-stream').send(body).expect(201));
      }
    }
    await postAndCount(t, posts, 60_000);
    const db = t.app.get(DatabaseService);

    expect(await audit.run()).toMatchObject({ groups: 7, flagged: 2, newlyFlagged: 2 });
    const res = await t.admin(t.http.get('/v1/admin/usage-audit')).expect(200);
    type Row = { contributor_id: string; flagged: boolean; flagged_ratios: string[]; events: number; prompt: { events: number; median_ratio: string; model_median_ratio: string }; reasoning: { events: number; median_ratio: string; model_median_ratio: string } };
    const rows = new Map<string, Row>(res.body.data.map((r: Row) => [r.contributor_id, r]));
    for (const id of HONEST) expect({ id, flagged: rows.get(id)!.flagged, ratios: rows.get(id)!.flagged_ratios }).toEqual({ id, flagged: false, ratios: [] });
    expect(rows.get(PROMPT_INFLATOR)).toMatchObject({ flagged: true, flagged_ratios: ['prompt'], events: EVENTS_EACH, prompt: { events: EVENTS_EACH } });
    expect(rows.get(REASONING_INFLATOR)).toMatchObject({ flagged: true, flagged_ratios: ['reasoning'], reasoning: { events: EVENTS_EACH } });
    const prompt = rows.get(PROMPT_INFLATOR)!.prompt;
    expect(Number(prompt.median_ratio) / Number(prompt.model_median_ratio)).toBeGreaterThan(1.2);
    const reasoning = rows.get(REASONING_INFLATOR)!.reasoning;
    expect(Number(reasoning.median_ratio) / Number(reasoning.model_median_ratio)).toBeGreaterThan(1.2);

    const anomalies = await db.pool.query<{ data: { contributor_id: string; ratio: string; flagged_ratios: string[] } }>(
      `SELECT data FROM webhook_events WHERE type = 'contributor.usage_anomaly' ORDER BY data->>'contributor_id'`,
    );
    expect(anomalies.rows.map((r) => [r.data.contributor_id, r.data.ratio, r.data.flagged_ratios])).toEqual([
      [PROMPT_INFLATOR, 'prompt', ['prompt']],
      [REASONING_INFLATOR, 'reasoning', ['reasoning']],
    ]);
  }, 240_000);

  it('a stream without the gateway\'s prompt count has no prompt ratio', async () => {
    const body = streamOf(completionCorpus(1, 3)[0]!, { prompt: 100, visible: 50, reasoning: 0 });
    await t.admin(t.http.post(`/v1/usage-events/stream?event_id=no-gateway-count&user_id=u_a&contributor_id=h1&model=${encodeURIComponent(GPT4O)}`)).set('Content-Type', 'text/event-stream').send(body).expect(201);
    await t.app.get(UsageAuditProducer).flush();
    const db = t.app.get(DatabaseService);
    const row = await waitFor(async () => (await db.pool.query(`SELECT reported_prompt_tokens, gateway_prompt_tokens, reasoning_tokens FROM usage_audit_samples WHERE event_id = 'no-gateway-count'`)).rows[0], 30_000);
    expect(row).toEqual({ reported_prompt_tokens: null, gateway_prompt_tokens: null, reasoning_tokens: 0 });
  });
});
