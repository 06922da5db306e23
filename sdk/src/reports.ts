// A report is one upstream call's usage on its way to the ledger: the raw SSE of a streamed
// completion (POST /v1/usage-events/stream) or a usage event (POST /v1/usage-events). It is plain
// JSON so the outbox can keep it on disk exactly as it will be sent; `occurred_at` is fixed when
// the report is made, so a resend after a crash is the same payload and the server answers it as a
// replay (200, `Idempotent-Replayed`) instead of billing it again or refusing it as a conflict.
import type { components, operations } from './generated/openapi.js';

export type StreamReportQuery = operations['StreamsController_ingestStream']['parameters']['query'];
export type UsageEventBody = components['schemas']['UsageEventDto'];

export type LedgerReport =
  | { kind: 'stream'; event_id: string; query: StreamReportQuery; /** The SSE bytes, base64. */ body_base64: string }
  | { kind: 'event'; event_id: string; body: UsageEventBody };

export function streamReport(query: StreamReportQuery, sse: Uint8Array): LedgerReport {
  return { kind: 'stream', event_id: query.event_id, query, body_base64: Buffer.from(sse.buffer, sse.byteOffset, sse.byteLength).toString('base64') };
}

export function eventReport(body: UsageEventBody): LedgerReport {
  return { kind: 'event', event_id: body.event_id, body };
}

/** What became of one attempt to hand a report to the ledger. */
export type DeliveryOutcome =
  | { outcome: 'delivered'; status: number; body: unknown }
  | { outcome: 'retry'; error: Error }
  /** A 4xx that sending again can never fix (validation, unknown contributor, idempotency conflict). */
  | { outcome: 'refused'; error: Error };
