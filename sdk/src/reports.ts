// A report is one upstream call's usage on its way to the ledger: the raw SSE of a streamed call
// (POST /v1/usage-events/stream), the JSON answer of a non-streamed one (POST
// /v1/usage-events/response) or a usage event (POST /v1/usage-events, embeddings and the AI SDK
// middleware). It is plain JSON so the outbox can keep it on disk exactly as it will be sent;
// `occurred_at` is fixed when the report is made, so a resend after a crash is the same payload and
// the server answers it as a replay (200, `Idempotent-Replayed`) instead of billing it again or
// refusing it as a conflict.
import type { components, operations } from './generated/openapi.js';
import type { WireFormat } from './wire-formats.js';

/** The stream route's query; `format` names the wire format (api.md "Usage events"). */
export type StreamReportQuery = operations['StreamsController_ingestStream']['parameters']['query'] & { format?: WireFormat };
/** POST /v1/usage-events/response takes the same query parameters as the stream route. */
export type ResponseReportQuery = StreamReportQuery;
export type UsageEventBody = components['schemas']['UsageEventDto'];

export type LedgerReport =
  | { kind: 'stream'; event_id: string; query: StreamReportQuery; /** The SSE bytes, base64. */ body_base64: string }
  | { kind: 'response'; event_id: string; query: ResponseReportQuery; /** The upstream's JSON answer, base64 (its bytes as received). */ body_base64: string }
  | { kind: 'event'; event_id: string; body: UsageEventBody };

const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export function streamReport(query: StreamReportQuery, sse: Uint8Array): LedgerReport {
  return { kind: 'stream', event_id: query.event_id, query, body_base64: base64(sse) };
}

export function responseReport(query: ResponseReportQuery, json: Uint8Array): LedgerReport {
  return { kind: 'response', event_id: query.event_id, query, body_base64: base64(json) };
}

export function eventReport(body: UsageEventBody): LedgerReport {
  return { kind: 'event', event_id: body.event_id, body };
}

/** What became of one attempt to hand a report to the ledger. */
export type DeliveryOutcome =
  | { outcome: 'delivered'; status: number; body: unknown }
  /** `unreachable`: no answer at all (refused, reset): every other report would fail the same way now. */
  | { outcome: 'retry'; error: Error; unreachable?: boolean }
  /** A 4xx that sending the same report again can never fix (validation, unknown contributor, idempotency conflict). */
  | { outcome: 'refused'; error: Error };
