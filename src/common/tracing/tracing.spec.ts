import fc from 'fast-check';
import { formatTraceparent, parseTraceparent } from './tracing.js';
import { untracedTraceparent } from './http-tracing.js';

const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));

describe('traceparent', () => {
  it('parses what it formats, and refuses malformed or all-zero ids', () => {
    fc.assert(
      fc.property(hexOf(16), hexOf(8), fc.integer({ min: 0, max: 255 }), (traceId, spanId, flags) => {
        const text = formatTraceparent({ traceId, spanId, traceFlags: flags });
        const parsed = parseTraceparent(text);
        if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) expect(parsed).toBeNull();
        else expect(parsed).toMatchObject({ traceId, spanId, traceFlags: flags });
      }),
    );
    for (const bad of ['', '01-' + 'a'.repeat(32) + '-' + 'b'.repeat(16) + '-01', `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`, `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`, 42, undefined]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
  });

  it('with tracing off, answers the caller\'s trace id with a new span id, not sampled; else a new valid trace', () => {
    const traceId = 'a'.repeat(32);
    const answer = untracedTraceparent(`00-${traceId}-${'b'.repeat(16)}-01`);
    expect(answer).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    expect(answer.split('-')[2]).not.toBe('b'.repeat(16));
    const fresh = new Set(Array.from({ length: 500 }, () => untracedTraceparent(undefined)));
    expect(fresh.size).toBe(500);
    for (const value of fresh) expect(parseTraceparent(value)).not.toBeNull();
    expect(untracedTraceparent('garbage')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });
});

describe('tracing configuration (OTEL_*)', () => {
  it('is off without an endpoint, and names a bad variable', async () => {
    const { parseTracingEnv } = await import('../../config/tracing.config.js');
    expect(parseTracingEnv({})).toEqual({ endpoint: null, protocol: 'http/protobuf', serviceName: undefined, sampler: 'parentbased_always_on', recordUrlPaths: false });
    expect(parseTracingEnv({ OTEL_RECORD_URL_PATHS: 'true' }).recordUrlPaths).toBe(true);
    expect(() => parseTracingEnv({ OTEL_RECORD_URL_PATHS: 'yes' })).toThrow(/OTEL_RECORD_URL_PATHS/);
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({ endpoint: 'http://collector:4318', protocol: 'http/json' });
    expect(() => parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining('OTEL_EXPORTER_OTLP_ENDPOINT') }));
    expect(() => parseTracingEnv({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
  });
});
