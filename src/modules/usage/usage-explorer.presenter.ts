// The explorer's answers: an event as JSON or as one CSV line, and the summary's sums. Money is
// decimal USD from atto-USD bigints, never a float.
import { formatAttoAsUsd } from '../../common/money/index.js';
import { csvField, csvTextField } from '../earnings/earnings-csv.js';
import type { ExplorerEvent, SummarySums } from './usage-explorer.repository.js';
import type { SummaryGroup } from './usage-explorer.schemas.js';

const usd = (atto: bigint | null) => (atto === null ? null : formatAttoAsUsd(atto));

export function explorerEventBody(e: ExplorerEvent) {
  return {
    event_id: e.eventId,
    status: e.status,
    model: e.model,
    price_variant: e.priceVariant,
    user_id: e.userId,
    contributor_id: e.contributorId,
    key_id: e.keyId,
    occurred_at: e.occurredAt.toISOString(),
    received_at: e.receivedAt.toISOString(),
    usage: { prompt_tokens: e.promptTokens, completion_tokens: e.completionTokens, cached_tokens: e.cachedTokens, reasoning_tokens: e.reasoningTokens },
    hold_id: e.holdId,
    official_usd: usd(e.officialAtto),
    charge_usd: usd(e.chargeAtto),
    payout_usd: usd(e.payoutAtto),
    margin_usd: usd(e.marginAtto),
    contributor_tier: e.contributorTier,
    price_id: e.priceId?.toString() ?? null,
  };
}

const LINE_END = '\r\n';

export const EXPLORER_CSV_HEADER = [
  'event_id',
  'status',
  'occurred_at',
  'received_at',
  'user_id',
  'contributor_id',
  'key_id',
  'model',
  'price_variant',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'official_usd',
  'charge_usd',
  'payout_usd',
  'margin_usd',
  'contributor_tier',
  'price_id',
  'hold_id',
].join(',') + LINE_END;

/** One RFC 4180 line; ids and models come from gateways, so they are neutralized as text. */
export function explorerCsvLine(e: ExplorerEvent): string {
  const text = (value: string | null) => (value === null ? '' : csvTextField(value));
  const money = (atto: bigint | null) => (atto === null ? '' : formatAttoAsUsd(atto));
  return [
    text(e.eventId),
    e.status,
    e.occurredAt.toISOString(),
    e.receivedAt.toISOString(),
    text(e.userId),
    text(e.contributorId),
    text(e.keyId),
    text(e.model),
    csvField(e.priceVariant),
    e.promptTokens,
    e.completionTokens,
    e.cachedTokens,
    e.reasoningTokens,
    money(e.officialAtto),
    money(e.chargeAtto),
    money(e.payoutAtto),
    money(e.marginAtto),
    e.contributorTier ?? '',
    e.priceId?.toString() ?? '',
    text(e.holdId),
  ].join(',') + LINE_END;
}

/** A token sum as a JSON integer (sums of 32-bit counts stay far below 2^53 in any real table). */
const count = (value: bigint) => Number(value);

function sumsBody(s: SummarySums) {
  return {
    events: count(s.events),
    prompt_tokens: count(s.promptTokens),
    completion_tokens: count(s.completionTokens),
    official_usd: formatAttoAsUsd(s.officialAtto),
    charge_usd: formatAttoAsUsd(s.chargeAtto),
    payout_usd: formatAttoAsUsd(s.payoutAtto),
    margin_usd: formatAttoAsUsd(s.marginAtto),
  };
}

export function summaryBody(groupBy: SummaryGroup, result: { groups: Array<{ key: string | null } & SummarySums>; totals: SummarySums }) {
  return { group_by: groupBy, data: result.groups.map((g) => ({ key: g.key, ...sumsBody(g) })), totals: sumsBody(result.totals) };
}
