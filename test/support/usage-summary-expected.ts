// The usage summary as the stored priced events give it, summed here in bigint (what the summary
// read before any rollup): the reference the summary's rollup-served answers are compared with.
import type pg from 'pg';
import type { SummarySums } from '../../src/modules/usage/usage-explorer.repository.js';
import { summaryBody } from '../../src/modules/usage/usage-explorer.presenter.js';
import type { SummaryGroup } from '../../src/modules/usage/usage-explorer.schemas.js';

export interface StoredEvent {
  user_id: string;
  contributor_id: string;
  model: string;
  key_id: string | null;
  occurred_at: Date;
  prompt_tokens: number;
  completion_tokens: number;
  official_atto: string;
  charge_atto: string;
  payout_atto: string;
  margin_atto: string;
}

export interface Filter {
  user_id?: string;
  contributor_id?: string;
  model?: string;
  key_id?: string;
  from?: string;
  to?: string;
}

const ZERO: SummarySums = { events: 0n, promptTokens: 0n, completionTokens: 0n, officialAtto: 0n, chargeAtto: 0n, payoutAtto: 0n, marginAtto: 0n };

function add(s: SummarySums, e: StoredEvent): SummarySums {
  return {
    events: s.events + 1n,
    promptTokens: s.promptTokens + BigInt(e.prompt_tokens),
    completionTokens: s.completionTokens + BigInt(e.completion_tokens),
    officialAtto: s.officialAtto + BigInt(e.official_atto),
    chargeAtto: s.chargeAtto + BigInt(e.charge_atto),
    payoutAtto: s.payoutAtto + BigInt(e.payout_atto),
    marginAtto: s.marginAtto + BigInt(e.margin_atto),
  };
}

const KEY_OF: Record<SummaryGroup, (e: StoredEvent) => string | null> = {
  day: (e) => e.occurred_at.toISOString().slice(0, 10),
  model: (e) => e.model,
  user: (e) => e.user_id,
  contributor: (e) => e.contributor_id,
  key: (e) => e.key_id,
};

/** The summary computed from the priced events as stored, in the API's order (key bytewise, null last). */
export function expectedBody(priced: StoredEvent[], filter: Filter, groupBy: SummaryGroup) {
  const from = filter.from === undefined ? null : new Date(filter.from);
  const to = filter.to === undefined ? null : new Date(filter.to);
  const keep = priced.filter(
    (e) =>
      (filter.user_id === undefined || e.user_id === filter.user_id) &&
      (filter.contributor_id === undefined || e.contributor_id === filter.contributor_id) &&
      (filter.model === undefined || e.model === filter.model) &&
      (filter.key_id === undefined || e.key_id === filter.key_id) &&
      (from === null || e.occurred_at >= from) &&
      (to === null || e.occurred_at < to),
  );
  const groups = new Map<string | null, SummarySums>();
  for (const e of keep) groups.set(KEY_OF[groupBy](e), add(groups.get(KEY_OF[groupBy](e)) ?? ZERO, e));
  const keys = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : Buffer.compare(Buffer.from(a), Buffer.from(b))));
  return summaryBody(groupBy, { groups: keys.map((key) => ({ key, ...groups.get(key)! })), totals: keep.reduce(add, ZERO) });
}

/** The priced events as stored. */
export async function storedPriced(sql: pg.Client): Promise<StoredEvent[]> {
  const rows = await sql.query<StoredEvent>(
    `SELECT user_id, contributor_id, model, key_id, occurred_at, prompt_tokens, completion_tokens,
       official_atto::text, charge_atto::text, payout_atto::text, margin_atto::text
     FROM usage_events WHERE status = 'priced'`,
  );
  return rows.rows;
}
