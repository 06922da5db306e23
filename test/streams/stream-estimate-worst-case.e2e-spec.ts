// Issue 14 item 6: a stream without provider usage whose content is one long run of letters made the
// token estimate quadratic on the event loop (100 KB: 8 s, 400 KB: 123 s; /health waited behind it).
// The estimate now tokenizes bounded segments in slices (src/modules/streams/token-estimator.ts, whose
// spec asserts the bound and the event-loop turns); this is the same worst case through the API.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { choiceChunk, sseBody } from '../../src/modules/streams/testing/sse-test-helpers.js';
import { TOKEN_SEGMENT_CHARS_MAX } from '../../src/modules/streams/token-estimator.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const LETTERS = 4 * 1024 * 1024;
const DELTAS = 16;

describe('stream token estimate, worst case (one run of letters, no usage)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('stream_worst_case');
    await seedBilling(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('bills 4 MiB of letters without a space in linear time, and /health answers meanwhile', async () => {
    const delta = 'a'.repeat(LETTERS / DELTAS);
    const body = sseBody([...Array.from({ length: DELTAS }, () => choiceChunk({ content: delta })), choiceChunk({}, { finish_reason: 'stop' })]);
    const streamed = t
      .admin(t.http.post('/v1/usage-events/stream?event_id=worst-1&user_id=u_42&contributor_id=c_std&model=openai/gpt-4o&prompt_tokens=10'))
      .set('Content-Type', 'text/event-stream')
      .send(body);
    const [res, health] = await Promise.all([streamed, t.http.get('/health')]);
    expect(health.status).toBe(200);
    expect(res.status).toBe(201);
    expect(res.body.stream).toMatchObject({ usage_source: 'estimated', content_length: LETTERS, finish_reason: 'stop' });
    // Each 512-letter segment is counted as the tokenizer counts it; the whole run would be 1/512 fewer per cut at most.
    const perSegment = countTokens('a'.repeat(TOKEN_SEGMENT_CHARS_MAX));
    expect(res.body.usage.completion_tokens).toBe((LETTERS / TOKEN_SEGMENT_CHARS_MAX) * perSegment);
    await expectLedgerClean(t);
  });
});
