// Who one upstream call is billed to (api.md "TypeScript SDK"): from the `attribution` callback, or
// from x-ledger-* headers on the request, which never reach the upstream.

export interface Attribution {
  event_id: string;
  user_id: string;
  contributor_id: string;
  /** The model to bill; default: the model the stream (or the completion) names. */
  model?: string;
  /** Reserve this much (decimal USD) with POST /v1/holds before the upstream call; captured by the report. */
  hold_usd?: string;
}

export type AttributionFn<Input> = (input: Input) => Attribution | Promise<Attribution>;

export const LEDGER_HEADER_PREFIX = 'x-ledger-';
const HEADER_FIELDS = {
  'x-ledger-event-id': 'event_id',
  'x-ledger-user-id': 'user_id',
  'x-ledger-contributor-id': 'contributor_id',
  'x-ledger-model': 'model',
  'x-ledger-hold-usd': 'hold_usd',
} as const;

/** The attribution the x-ledger-* headers carry (possibly partial). */
export function attributionFromHeaders(headers: Headers | Record<string, string | undefined> | undefined): Partial<Attribution> {
  const found: Partial<Attribution> = {};
  if (!headers) return found;
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null));
  for (const [header, field] of Object.entries(HEADER_FIELDS)) {
    const value = get(header);
    if (value) found[field] = value;
  }
  return found;
}

/** The headers without any x-ledger-* one. */
export function withoutLedgerHeaders(headers: Headers): Headers {
  const kept = new Headers();
  headers.forEach((value, name) => {
    if (!name.toLowerCase().startsWith(LEDGER_HEADER_PREFIX)) kept.append(name, value);
  });
  return kept;
}

export class LedgerAttributionError extends Error {
  override name = 'LedgerAttributionError';
}

/** Headers first, the callback's answer over them; refuses a call nobody could be billed for. */
export function completeAttribution(fromHeaders: Partial<Attribution>, fromCallback: Partial<Attribution> | undefined): Attribution {
  const merged = { ...fromHeaders, ...stripUndefined(fromCallback ?? {}) };
  for (const field of ['event_id', 'user_id', 'contributor_id'] as const) {
    if (!merged[field]) throw new LedgerAttributionError(`ledger attribution has no ${field}: return it from attribution() or send the x-ledger-${field.replace('_id', '')}-id header`);
  }
  return merged as Attribution;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The hold of a call: one per event, so a retried call reserves once. */
export function holdIdFor(eventId: string): string {
  return `hold:${eventId}`;
}
