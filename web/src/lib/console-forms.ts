// Pure logic of the statement, refund, webhook and price-tier forms (tested in console-forms.test.ts).
import type { NewPriceTier, NewRefund } from '../api/wire';
import { normalizeDecimalInput } from '../money/decimal';

/** "YYYY-MM" of a UTC date. */
export function monthOf(date: Date): string {
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The current UTC month and the `count - 1` before it, newest first (statements exist only for begun months). */
export function recentMonths(now: Date, count: number): string[] {
  const months: string[] = [];
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  for (let i = 0; i < count; i++) {
    months.push(`${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}`);
    month -= 1;
    if (month < 0) {
      month = 11;
      year -= 1;
    }
  }
  return months;
}

/** statements.md: YYYY-MM, month 01..12, year 2000..9999. */
export function isStatementMonth(text: string): boolean {
  const match = /^(\d{4})-(\d{2})$/.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  return year >= 2000 && month >= 1 && month <= 12;
}

export function statementFilename(contributorId: string, month: string, format: 'csv' | 'pdf'): string {
  return `statement-${contributorId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${month}.${format}`;
}

/** A refund's idempotency key, made once per form (a resend of the same form is the same refund). */
export function newRefundId(random: () => string = () => crypto.randomUUID()): string {
  return `console-${random()}`;
}

/** USD amounts have at most 18 decimals (atto-USD). */
const USD_DECIMALS = 18;

export interface RefundDraft {
  refundId: string;
  full: boolean;
  amount: string;
  reason: string;
}

/** The POST body, or the first problem. A full refund omits amount_usd (the API refunds the rest). */
export function refundBody(draft: RefundDraft): { body: NewRefund } | { problem: string } {
  const reason = draft.reason.trim();
  if (!reason) return { problem: 'a reason is required' };
  if (draft.full) return { body: { refund_id: draft.refundId, reason } };
  const amount = normalizeDecimalInput(draft.amount, USD_DECIMALS);
  if (amount === null || amount.startsWith('-')) return { problem: `the amount must be a positive decimal with at most ${USD_DECIMALS} decimals` };
  if (!/[1-9]/.test(amount)) return { problem: 'the amount must be greater than zero' };
  return { body: { refund_id: draft.refundId, amount_usd: amount, reason } };
}

/** Filters with empty fields dropped (the list's query string and query key). */
export function refundFilters(input: { event_id: string; contributor_id: string; user_id: string }): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) if (value.trim() !== '') filters[name] = value.trim();
  return filters;
}

/** The chosen event types of a webhook form, or a problem. */
export function webhookBody(draft: { url: string; events: string[]; description: string }):
  | { body: { url: string; events: string[]; description?: string } }
  | { problem: string } {
  const url = draft.url.trim();
  if (!url) return { problem: 'a URL is required' };
  if (draft.events.length === 0) return { problem: 'choose at least one event type' };
  const description = draft.description.trim();
  return { body: { url, events: [...new Set(draft.events)], ...(description ? { description } : {}) } };
}

/** Per-Mtok prices have at most 6 decimals, fees at most 12 (api.md). */
export const PER_MTOK_DECIMALS = 6;
export const FEE_DECIMALS = 12;

/** A tier row of the price form as typed: the threshold and its prices as text. */
export type TierDraft = Record<'above' | 'input' | 'output' | 'cached', string> & { inclusive: boolean };

/** Tier rows typed in the price form -> api.md `tiers`, prices as decimal strings. Empty rows are dropped. */
export function tiersBody(rows: TierDraft[]): { tiers: NewPriceTier[] } | { problem: string } {
  const tiers: NewPriceTier[] = [];
  const seen = new Set<string>();
  for (const [index, row] of rows.entries()) {
    const n = index + 1;
    if (row.above.trim() === '' && row.input.trim() === '' && row.output.trim() === '' && row.cached.trim() === '') continue;
    const above = row.above.trim().replace(/[,_ ]/g, '');
    if (!/^\d{1,15}$/.test(above)) return { problem: `tier ${n}: "above input tokens" must be a whole number` };
    if (seen.has(above)) return { problem: `tier ${n}: two tiers with the same above input tokens` };
    seen.add(above);
    const tier: NewPriceTier = { above_input_tokens: Number(above) };
    if (row.inclusive) tier.inclusive = true;
    for (const [name, text, label] of [
      ['input_usd_per_mtok', row.input, 'input'],
      ['output_usd_per_mtok', row.output, 'output'],
      ['cached_input_usd_per_mtok', row.cached, 'cached input'],
    ] as const) {
      if (text.trim() === '') continue;
      const value = normalizeDecimalInput(text, PER_MTOK_DECIMALS);
      if (value === null) return { problem: `tier ${n}: ${label} price must be a decimal with at most ${PER_MTOK_DECIMALS} decimals` };
      tier[name] = value;
    }
    if (Object.keys(tier).every((key) => !key.endsWith('_usd_per_mtok'))) return { problem: `tier ${n}: give at least one price` };
    tiers.push(tier);
  }
  tiers.sort((a, b) => a.above_input_tokens - b.above_input_tokens);
  return { tiers };
}

export interface ReconciliationView {
  ok: boolean;
  checked_at: string | null;
  paid_lines: number | null;
  chain_payouts: number | null;
  missing_on_chain: number;
  unexpected_on_chain: number;
  funding_mismatches: number;
  /** amount_usdc: the micro-USDC integer as a decimal USDC string (no JS number on the way). */
  differences: Array<{ kind: string; tx_hash: string; recipient?: string; line_id?: string; amount_micro_usdc: string; amount_usdc: string }>;
}

/** micro-USDC integer text -> USDC decimal text ("-1500000" -> "-1.5"). */
export function microToUsdc(micro: string): string {
  const match = /^(-?)(\d+)$/.exec(micro.trim());
  if (!match) return micro;
  const digits = match[2]!.replace(/^0+(?=\d)/, '').padStart(7, '0');
  const whole = digits.slice(0, -6).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-6).replace(/0+$/, '');
  const sign = match[1] && /[1-9]/.test(digits) ? '-' : '';
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** The settlement's `reconciliation` (unknown JSON) read defensively; null when there is none. */
export function reconciliationOf(value: unknown): ReconciliationView | null {
  if (value === null || typeof value !== 'object') return null;
  const r = value as Record<string, unknown>;
  if (typeof r.ok !== 'boolean') return null;
  const differences = Array.isArray(r.differences) ? (r.differences as Array<Record<string, unknown>>) : [];
  return {
    ok: r.ok,
    checked_at: typeof r.checked_at === 'string' ? r.checked_at : null,
    paid_lines: typeof r.paid_lines === 'number' ? r.paid_lines : null,
    chain_payouts: typeof r.chain_payouts === 'number' ? r.chain_payouts : null,
    missing_on_chain: count(r.missing_on_chain),
    unexpected_on_chain: count(r.unexpected_on_chain),
    funding_mismatches: count(r.funding_mismatches),
    differences: differences.map((d) => {
      const micro = typeof d.amount_micro_usdc === 'string' ? d.amount_micro_usdc : '0';
      return {
        kind: String(d.kind ?? 'difference'),
        tx_hash: String(d.tx_hash ?? ''),
        ...(typeof d.recipient === 'string' ? { recipient: d.recipient } : {}),
        ...(typeof d.line_id === 'string' ? { line_id: d.line_id } : {}),
        amount_micro_usdc: micro,
        amount_usdc: microToUsdc(micro),
      };
    }),
  };
}
