// A settlement's trace: the send, each chain RPC call under it, each payout transaction's send
// and confirmation. In process, on real Postgres and Anvil: these spans are the code's own (no
// module patching), so a tracer provider registered here records them; the OTLP export path is
// covered by tracing.e2e-spec.ts.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BullMQOtel } from 'bullmq-otel';
import { markTracingStarted } from '../../src/common/tracing/tracing.js';
import { creditPayable, registerContributors, startSettlementHarness, USD_ATTO, type SettlementHarness } from '../settlement/support/settlement-harness.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
markTracingStarted(new BullMQOtel({ tracerName: 'bullmq' }));

let h: SettlementHarness;

beforeAll(async () => {
  h = await startSettlementHarness('settlement_tracing');
});
afterAll(async () => {
  await h?.close();
  await provider.shutdown();
});

it('traces a settlement: settlement.send > chain.rpc calls, payout.send, payout.confirm', async () => {
  await registerContributors(h, ['c_trace_1', 'c_trace_2']);
  await creditPayable(h, [
    { contributorId: 'c_trace_1', payoutAtto: 3n * USD_ATTO },
    { contributorId: 'c_trace_2', payoutAtto: 5n * USD_ATTO },
  ]);
  const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
  if (created.kind !== 'created') throw new Error(`expected a settlement, got ${created.kind}`);
  exporter.reset();
  const outcome = await h.sender.sendSettlement(created.settlement.id);
  expect(outcome).toMatchObject({ kind: 'finished', status: 'confirmed' });

  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === 'settlement.send')!;
  expect(root).toBeDefined();
  expect(root.attributes['settlement.id']).toBe(created.settlement.id);
  expect(root.attributes['settlement.send.outcome']).toBe('finished');
  const traceId = root.spanContext().traceId;
  const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
  const rpc = inTrace.filter((s) => s.name.startsWith('chain.rpc'));
  expect(rpc.length).toBeGreaterThan(3);
  expect(rpc.map((s) => String(s.attributes['rpc.method'])).join(',')).toContain('eth_sendRawTransaction');
  const send = inTrace.filter((s) => s.name === 'payout.send');
  const confirm = inTrace.filter((s) => s.name === 'payout.confirm');
  expect(send.length).toBe(1); // two recipients, one batch transaction
  expect(confirm.length).toBe(1);
  expect(confirm[0]!.attributes['payout.tx.hash']).toMatch(/^0x[0-9a-f]{64}$/);
  // The broadcast RPC call is a child of its payout.send span.
  const broadcast = rpc.find((s) => String(s.attributes['rpc.method']).includes('eth_sendRawTransaction'))!;
  expect(broadcast.parentSpanContext?.spanId).toBe(send[0]!.spanContext().spanId);
});
