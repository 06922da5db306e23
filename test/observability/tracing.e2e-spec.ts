// OpenTelemetry end to end: the API and the worker run as child processes (the instrumentations
// patch modules as Node loads them, which jest's own module loader would bypass), export to an
// OTLP/HTTP receiver on 127.0.0.1, and the spans they send are checked by trace id.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import request from 'supertest';
import { findFreePort, waitForReady } from '../../scripts/lib/processes.js';
import { publishUsageEvent } from '../../src/queue/usage-events.producer.js';
import { QUEUE_USAGE_EVENTS } from '../../src/queue/queue-names.js';
import { exampleEvent, seedBilling } from '../support/billing-fixtures.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createTestDatabase } from '../support/test-db.js';
import { DB_QUERY_TEXT, DB_STATEMENT_MAX_CHARS } from '../../src/common/tracing/db-statement.js';
import { TEST_ADMIN_KEY, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

const register = fileURLToPath(new URL('../support/ts-node/swc-register.mjs', import.meta.url));
const entry = (name: 'main' | 'worker') => fileURLToPath(new URL(`../../src/${name}.ts`, import.meta.url));
const SPAN_WAIT_MS = 30_000;

interface Child {
  process: ChildProcess;
  stdout: string[];
}

const children: Child[] = [];
let receiver: OtlpReceiver;
let protobufReceiver: OtlpReceiver;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let baseUrl: string;
let t: TestApp;
const queuePrefix = `test-otel-${randomBytes(4).toString('hex')}`;

function start(name: 'main' | 'worker', env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', register, entry(name)], {
    env: { ...process.env, DATABASE_URL: db.url, ADMIN_API_KEY: TEST_ADMIN_KEY, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'info', SETTLEMENT_SCHEDULER_ENABLED: 'false', OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started: Child = { process: child, stdout: [] };
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    started.stdout.push(...lines);
  });
  children.push(started);
  return started;
}

const traceparentOf = (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
const spansOf = (traceId: string, from: ReceivedSpan[] = receiver.spans) => from.filter((s) => s.traceId === traceId);

let api: Child;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  protobufReceiver = await startOtlpReceiver();
  db = await createTestDatabase('otel');
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  api = start('main', { PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  // The worker exports over http/protobuf (the default protocol) to a receiver of its own.
  start('worker', { OTEL_EXPORTER_OTLP_ENDPOINT: protobufReceiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'ledger-worker-under-test' });
  await waitForReady(`${baseUrl}/health`, undefined, 90_000);
  const http = request(baseUrl);
  t = { http, admin: (req: request.Test) => req.set('Authorization', `Bearer ${TEST_ADMIN_KEY}`) } as unknown as TestApp;
  await seedBilling(t);
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  await receiver?.close();
  await protobufReceiver?.close();
  await db?.drop();
});

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it("continues the caller's trace: HTTP, group commit and Postgres spans; the response and the log lines carry it", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await t.http.post('/v1/usage-events?via=test').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`).set('traceparent', `00-${traceId}-${callerSpanId}-01`).send(exampleEvent({ event_id: 'otel-http-1' })).expect(201);
    expect(res.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const responseSpanId = String(res.headers.traceparent).split('-')[2];

    const spans = await waitFor(async () => {
      const found = spansOf(traceId);
      return found.some((s) => s.name === 'usage.group_commit') && found.some((s) => s.name.startsWith('pg.query')) && found.some((s) => s.spanId === responseSpanId) && found;
    }, SPAN_WAIT_MS);
    // TRACE_PICTURE=file.json keeps the trace for docs/observability.md (scripts/render-trace.ts).
    if (process.env.TRACE_PICTURE) writeFileSync(process.env.TRACE_PICTURE, JSON.stringify(spans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2));
    const server = spans.find((s) => s.spanId === responseSpanId)!;
    expect(server.name).toBe('POST /v1/usage-events');
    expect(server.kind).toBe(2); // SERVER
    expect(server.attributes['http.route']).toBe('/v1/usage-events');
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/v1/usage-events', 'http.response.status_code': 201 });
    expect(server.parentSpanId).toBe(callerSpanId);
    expect(Object.keys(server.attributes).some((key) => key.startsWith('url.query') || key === 'http.target')).toBe(false);
    // One server span per request (no second one from an http instrumentation).
    expect(spans.filter((s) => s.kind === 2)).toHaveLength(1);
    const commit = spans.find((s) => s.name === 'usage.group_commit')!;
    expect(commit.attributes['usage.group_commit.events']).toBe(1);
    expect(commit.links.map((l) => l.spanId)).toContain(server.spanId);
    // Postgres calls of the commit are its children.
    const commitQueries = spans.filter((s) => s.parentSpanId === commit.spanId && s.name.startsWith('pg.'));
    expect(commitQueries.length).toBeGreaterThan(0);
    // The commit's statement is kilobytes of SQL: its span keeps the start and the length only.
    const texts = commitQueries.map((s) => String(s.attributes[DB_QUERY_TEXT]));
    expect(texts.some((text) => /\.\.\. \(\d{4,} chars\)$/.test(text))).toBe(true);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(DB_STATEMENT_MAX_CHARS + 20);
    expect(spans.every((s) => s.service === 'contributor-ledger-api')).toBe(true);

    const logged = api.stdout.filter((line) => line.includes(traceId)).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.find((l) => l.msg === 'request completed')).toMatchObject({ trace_id: traceId, span_id: responseSpanId });
  });

  it('keeps the server span active in the handler when the body arrives in pieces after the headers', async () => {
    // A body's later chunks are socket reads outside the span's context: the handler (and the
    // group commit it joins) must still see the request's span.
    const traceId = randomBytes(16).toString('hex');
    const body = Buffer.from(JSON.stringify(exampleEvent({ event_id: 'otel-http-split' })));
    const answer = await new Promise<{ status: number; traceparent: string }>((resolve, reject) => {
      const req = httpRequest(`${baseUrl}/v1/usage-events`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json', 'content-length': body.length, traceparent: traceparentOf(traceId) } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, traceparent: String(res.headers.traceparent) }));
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => {
        req.write(body.subarray(0, 10));
        setTimeout(() => req.end(body.subarray(10)), 50);
      }, 50);
    });
    expect(answer.status).toBe(201);
    const serverSpanId = answer.traceparent.split('-')[2];
    expect(answer.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const commit = await waitFor(async () => receiver.spans.find((s) => s.name === 'usage.group_commit' && s.links.some((l) => l.spanId === serverSpanId)), SPAN_WAIT_MS);
    expect(commit.attributes['usage.group_commit.events']).toBeGreaterThanOrEqual(1);
  });

  it('answers traceparent on a request without one (a new trace)', async () => {
    const res = await t.http.get('/health').expect(200);
    expect(res.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it("writes a queued event in the producer's trace (metadata.traceparent); the worker exports over http/protobuf", async () => {
    const traceId = randomBytes(16).toString('hex');
    const queue = new Queue(QUEUE_USAGE_EVENTS, { connection: { url: 'redis://127.0.0.1:6379' }, prefix: queuePrefix });
    try {
      // A producer without OpenTelemetry: only the event's metadata carries the trace.
      await publishUsageEvent(queue, exampleEvent({ event_id: 'otel-queue-1', metadata: { traceparent: traceparentOf(traceId) } }));
      const spans = await waitFor(async () => {
        const found = spansOf(traceId, protobufReceiver.spans);
        // Spans are exported as they end: the ingest span (and BullMQ's, which it links to) last.
        const ingest = found.find((s) => s.name === 'usage-events ingest');
        const linked = ingest && protobufReceiver.spans.some((s) => s.spanId === ingest.links[0]?.spanId);
        return found.some((s) => s.name === 'usage.group_commit') && found.some((s) => s.name.startsWith('pg.query')) && linked && found;
      }, SPAN_WAIT_MS);
      expect(protobufReceiver.protobufBodies.length).toBeGreaterThan(0);
      const ingest = spans.find((s) => s.name === 'usage-events ingest')!;
      expect(ingest).toBeDefined();
      expect(ingest.kind).toBe(5); // CONSUMER
      expect(ingest.attributes['usage.trace_source']).toBe('metadata.traceparent');
      expect(ingest.attributes['usage.event_id']).toBe('otel-queue-1');
      // Linked to BullMQ's own span of the job (a trace of its own: the producer wrote no telemetry).
      const bullmqSpan = protobufReceiver.spans.find((s) => s.spanId === ingest.links[0]?.spanId);
      expect(bullmqSpan?.name).toMatch(/process/);
      expect(spans.find((s) => s.name === 'usage.group_commit')!.parentSpanId).toBe(ingest.spanId);
      expect(spans.every((s) => s.service === 'ledger-worker-under-test')).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('names Redis commands on their spans without keys or arguments', async () => {
    const redisSpans = await waitFor(async () => {
      const found = [...receiver.spans, ...protobufReceiver.spans].filter((s) => s.attributes['db.system.name'] === 'redis');
      return found.length > 0 && found;
    }, SPAN_WAIT_MS);
    for (const span of redisSpans) expect(span.attributes[DB_QUERY_TEXT]).toBe(span.name);
  });
});
