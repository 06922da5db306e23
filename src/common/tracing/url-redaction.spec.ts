import fc from 'fast-check';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { redactAttributes, redactSpan, redactUrl, redactUrlsInText, UrlRedactingExporter } from './url-redaction.js';

const HIDE = { recordUrlPaths: false };
const PATHS = { recordUrlPaths: true };
const RPC = 'https://user:pw@eth-mainnet.example.com:8545/v3/rpc-secret-key?apikey=query-secret#frag';

describe('URLs in spans', () => {
  it('keeps scheme, host and port (and the path only when allowed), never credentials, query or fragment', () => {
    expect(redactUrl(RPC, HIDE)).toBe('https://eth-mainnet.example.com:8545');
    expect(redactUrl(RPC, PATHS)).toBe('https://eth-mainnet.example.com:8545/v3/rpc-secret-key');
    expect(redactUrl('http://127.0.0.1/', PATHS)).toBe('http://127.0.0.1');
    expect(redactUrl('not a url', HIDE)).toBeNull();
    expect(redactUrlsInText(`HTTP request failed.\n\nURL: ${RPC}\nRequest body: {}`, HIDE)).toBe('HTTP request failed.\n\nURL: https://eth-mainnet.example.com:8545\nRequest body: {}');
  });

  it('property: no path segment or query of an outgoing URL survives in any attribute, event or status', () => {
    const secretArb = fc.stringMatching(/^[A-Za-z0-9_-]{12,30}$/);
    fc.assert(
      fc.property(secretArb, secretArb, fc.constantFrom(SpanKind.CLIENT, SpanKind.INTERNAL, SpanKind.PRODUCER), (pathSecret, querySecret, kind) => {
        // The path is kept with OTEL_RECORD_URL_PATHS: a query secret inside the path secret would be "found" there.
        fc.pre(!pathSecret.includes(querySecret));
        const url = `https://rpc.example:443/v2/${pathSecret}?key=${querySecret}`;
        const span = fakeSpan(kind, {
          'url.full': url,
          'http.url': url,
          'url.path': `/v2/${pathSecret}`,
          'url.query': `?key=${querySecret}`,
          'http.target': `/v2/${pathSecret}?key=${querySecret}`,
          'error.message': `fetch ${url} failed`,
          'server.address': 'rpc.example',
        });
        const exported = JSON.stringify(redactSpan(span, HIDE));
        expect(exported).not.toContain(pathSecret);
        expect(exported).not.toContain(querySecret);
        expect(redactSpan(span, HIDE).attributes).toEqual({ 'url.full': 'https://rpc.example', 'http.url': 'https://rpc.example', 'error.message': 'fetch https://rpc.example failed', 'server.address': 'rpc.example' });
        const withPaths = JSON.stringify(redactSpan(span, PATHS));
        expect(withPaths).toContain(pathSecret);
        expect(withPaths).not.toContain(querySecret);
      }),
      { numRuns: 50 },
    );
  });

  it("keeps an incoming request's own path (server spans) and leaves spans without URLs untouched", () => {
    const server = { 'url.path': '/v1/usage-events/e1', 'url.query': '?x=1', 'http.route': '/v1/usage-events/:event_id' };
    expect(redactAttributes(server, SpanKind.SERVER, HIDE)).toBe(server);
    const plain: ReadableSpan = { ...fakeSpan(SpanKind.CLIENT, { 'db.system.name': 'redis' }), events: [], status: { code: SpanStatusCode.OK } };
    expect(redactSpan(plain, HIDE)).toBe(plain);
  });

  it('the exporter hands on redacted copies', async () => {
    const inner = new InMemorySpanExporter();
    const exporter = new UrlRedactingExporter(inner, HIDE);
    await new Promise((resolve) => exporter.export([fakeSpan(SpanKind.CLIENT, { 'url.full': RPC })], resolve));
    expect(inner.getFinishedSpans().map((s) => s.attributes)).toEqual([{ 'url.full': 'https://eth-mainnet.example.com:8545' }]);
    expect(inner.getFinishedSpans()[0]!.events[0]!.attributes).toEqual({ 'exception.message': 'URL: https://eth-mainnet.example.com:8545' });
    expect(inner.getFinishedSpans()[0]!.status.message).toBe('at https://eth-mainnet.example.com:8545');
    await exporter.shutdown();
  });
});

function fakeSpan(kind: SpanKind, attributes: Record<string, string>): ReadableSpan {
  return {
    name: 'POST',
    kind,
    spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 }),
    startTime: [0, 0],
    endTime: [0, 1],
    status: { code: SpanStatusCode.ERROR, message: `at ${RPC}` },
    attributes,
    links: [],
    events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.message': `URL: ${RPC}` } }],
    duration: [0, 1],
    ended: true,
    resource: {} as ReadableSpan['resource'],
    instrumentationScope: { name: 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
