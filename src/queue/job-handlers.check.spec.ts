import { HistoryProcessor } from '../modules/history/history.processor.js';
import { HoldsExpiryProcessor } from '../modules/holds/holds-expiry.processor.js';
import { LitellmBackfillProcessor } from '../modules/litellm/litellm-backfill.processor.js';
import { MaturityProcessor } from '../modules/maturity/maturity.processor.js';
import { UsageAuditProcessor } from '../modules/usage-audit/usage-audit.processor.js';
import { SpendSweepProcessor } from '../modules/spend/spend-sweep.processor.js';
import { SettlementProcessor } from '../modules/settlement/settlement.processor.js';
import { UsageEventsProcessor } from '../modules/usage/usage-events.processor.js';
import { WebhookDispatchProcessor } from '../modules/webhooks/webhook-dispatch.processor.js';
import { WebhookRelayProcessor } from '../modules/webhooks/webhook-relay.processor.js';
import { handlersOf, jobHandlerProblems, type FoundHandler } from './job-handlers.check.js';
import { JOBS } from './jobs.js';

const catalogue = {
  'a-job': { queue: 'q1', handled: true },
  'b-job': { queue: 'q2', handled: true },
  'dead-job': { queue: 'q3', handled: false },
};
const at = (job: string, label: string, queue: string | undefined) => ({ job, label, queue }) as FoundHandler;

describe('jobHandlerProblems', () => {
  it('accepts exactly one handler per handled job, on its queue, and none for dead letters', () => {
    expect(jobHandlerProblems([at('a-job', 'A.a', 'q1'), at('b-job', 'B.b', 'q2')], catalogue)).toEqual([]);
  });

  it.each([
    ['a missing handler', [at('a-job', 'A.a', 'q1')], /b-job \(queue q2\) has no handler/],
    ['two handlers', [at('a-job', 'A.a', 'q1'), at('a-job', 'C.a', 'q1'), at('b-job', 'B.b', 'q2')], /a-job has 2 handlers: A.a, C.a/],
    ['a handler on another queue', [at('a-job', 'A.a', 'q2'), at('b-job', 'B.b', 'q2')], /A.a handles a-job of queue q1 but consumes q2/],
    ['a handler outside any processor', [at('a-job', 'A.a', undefined), at('b-job', 'B.b', 'q2')], /consumes no queue/],
    ['a handler of a dead letter', [at('a-job', 'A.a', 'q1'), at('b-job', 'B.b', 'q2'), at('dead-job', 'D.d', 'q3')], /dead-job is kept for an operator/],
  ] as Array<[string, FoundHandler[], RegExp]>)('refuses %s', (_label, found, problem) => {
    const problems = jobHandlerProblems(found, catalogue);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});

describe('the worker processors', () => {
  it('handle every job of the catalogue exactly once, each on its own queue', () => {
    const found = handlersOf([UsageEventsProcessor, HoldsExpiryProcessor, SettlementProcessor, WebhookRelayProcessor, WebhookDispatchProcessor, HistoryProcessor, MaturityProcessor, LitellmBackfillProcessor, UsageAuditProcessor, SpendSweepProcessor]);
    expect(jobHandlerProblems(found)).toEqual([]);
    expect(found.map((h) => h.job).sort()).toEqual(Object.entries(JOBS).filter(([, s]) => s.handled).map(([name]) => name).sort());
  });
});
