// No secret in an exported span (api.md "Operations"): RPC providers put their key in the URL's
// path or query (`https://eth.example/v3/<key>`, `?apikey=<key>`), and webhook URLs often carry a
// token in theirs. The undici and http instrumentations record every outgoing URL whole (`url.full`,
// `url.path`, `url.query`, `http.url`, `http.target`), and an error's message may quote one. So
// every span is redacted on its way to the exporter: an outgoing URL keeps its scheme, host and
// port only (and its path when the operator allows it, OTEL_RECORD_URL_PATHS=true), never its
// query or credentials. Incoming requests (server spans) keep their path: it is this API's own
// route, and keys and signatures travel in headers. Pure, apart from the exporter wrapper.
import { SpanKind, type Attributes, type AttributeValue, type SpanStatus } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';

export interface UrlRedaction {
  /** OTEL_RECORD_URL_PATHS: keep an outgoing URL's path (its query never). */
  recordUrlPaths: boolean;
}

/** Attributes that hold a whole URL. */
const FULL_URL_KEYS = new Set(['url.full', 'http.url']);
/** Attributes that hold a path, or a path and its query (http.target). */
const PATH_KEYS = new Set(['url.path', 'http.target']);
/** Attributes that hold a query. */
const QUERY_KEYS = new Set(['url.query']);
/** A URL inside free text (an error message, a stack trace). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}`]+/gi;

/** The URL as recorded: scheme, host and port (and the path if allowed); null if it is no URL. */
export function redactUrl(text: string, options: UrlRedaction): string | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  // `host` is the hostname with a non-default port; user, password, query and fragment are dropped.
  const origin = `${url.protocol}//${url.host}`;
  return options.recordUrlPaths && url.pathname !== '/' ? `${origin}${url.pathname}` : origin;
}

/** Text with every URL in it redacted as redactUrl says (what cannot be parsed is cut to its scheme). */
export function redactUrlsInText(text: string, options: UrlRedaction): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (found) => redactUrl(found, options) ?? `${found.slice(0, found.indexOf('://'))}://(redacted)`);
}

function redactValue(value: AttributeValue | undefined, options: UrlRedaction): AttributeValue | undefined {
  if (typeof value === 'string') return redactUrlsInText(value, options);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? redactUrlsInText(item, options) : item)) as AttributeValue;
  return value;
}

/** A path attribute's value as recorded, or undefined (dropped). */
function redactPath(key: string, value: AttributeValue | undefined, options: UrlRedaction): AttributeValue | undefined {
  if (!options.recordUrlPaths || typeof value !== 'string') return undefined;
  return key === 'http.target' ? value.split('?')[0] : value;
}

/** The attributes as exported; the same object when nothing needed redacting. */
export function redactAttributes(attributes: Attributes, kind: SpanKind, options: UrlRedaction): Attributes {
  const outgoing = kind !== SpanKind.SERVER;
  let redacted: Attributes | null = null;
  for (const [key, value] of Object.entries(attributes)) {
    let next: AttributeValue | undefined;
    if (outgoing && FULL_URL_KEYS.has(key) && typeof value === 'string') next = redactUrl(value, options) ?? undefined;
    else if (outgoing && PATH_KEYS.has(key)) next = redactPath(key, value, options);
    else if (outgoing && QUERY_KEYS.has(key)) next = undefined;
    else if (!outgoing && (FULL_URL_KEYS.has(key) || PATH_KEYS.has(key) || QUERY_KEYS.has(key))) next = value;
    else next = redactValue(value, options);
    if (next === value) continue;
    redacted ??= { ...attributes };
    if (next === undefined) delete redacted[key];
    else redacted[key] = next;
  }
  return redacted ?? attributes;
}

function redactEvents(events: TimedEvent[], options: UrlRedaction): TimedEvent[] {
  let changed = false;
  const redacted = events.map((event) => {
    if (!event.attributes) return event;
    const attributes = redactAttributes(event.attributes, SpanKind.INTERNAL, options);
    if (attributes === event.attributes) return event;
    changed = true;
    return { ...event, attributes };
  });
  return changed ? redacted : events;
}

function redactStatus(status: SpanStatus, options: UrlRedaction): SpanStatus {
  if (status.message === undefined) return status;
  const message = redactUrlsInText(status.message, options);
  return message === status.message ? status : { ...status, message };
}

/** The span as exported: a plain copy with redacted attributes, events and status, or the span itself. */
export function redactSpan(span: ReadableSpan, options: UrlRedaction): ReadableSpan {
  const attributes = redactAttributes(span.attributes, span.kind, options);
  const events = redactEvents(span.events, options);
  const status = redactStatus(span.status, options);
  if (attributes === span.attributes && events === span.events && status === span.status) return span;
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes,
    links: span.links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** Wraps the OTLP exporter: every span leaves the process redacted (see the file comment). */
export class UrlRedactingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly options: UrlRedaction,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(
      spans.map((span) => redactSpan(span, this.options)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
