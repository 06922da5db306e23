// A webhook delivery attempt with tracing on: a client span, and the request carries its
// traceparent (a real HTTP receiver on 127.0.0.1; the span is the code's own, recorded in process).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BullMQOtel } from 'bullmq-otel';
import { markTracingStarted } from '../../src/common/tracing/tracing.js';
import { sendWebhook } from '../../src/modules/webhooks/webhook-sender.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
markTracingStarted(new BullMQOtel({ tracerName: 'bullmq' }));

afterAll(() => provider.shutdown());

it('sends traceparent of its webhook.deliver span, which records the outcome', async () => {
  const received: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    received.push(req.headers.traceparent as string | undefined);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/ledger`;
    const attempt = await sendWebhook({ url, secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`, messageId: 'msg_0123456789abcdef0123456789abcdef', body: '{"type":"t","timestamp":"2026-12-01T00:00:00Z","data":{}}' }, { allowPrivate: true, httpsOnly: false });
    expect(attempt.statusCode).toBe(204);
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'webhook.deliver');
    expect(span).toBeDefined();
    expect(received).toEqual([`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`]);
    expect(span!.attributes).toMatchObject({ 'webhook.message_id': 'msg_0123456789abcdef0123456789abcdef', 'server.address': '127.0.0.1', 'url.path': '/hooks/ledger', 'http.response.status_code': 204 });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
