// Wire shapes of docs/api.md as the console reads them. Money is always a decimal string.
export type Usd = string;
export type Role = 'admin' | 'gateway' | 'contributor';

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Whoami {
  key_id: string;
  role: Role;
  contributor_id: string | null;
}

export interface Overview {
  charged_usd: Usd;
  revenue_usd: Usd;
  users_balance_usd: Usd;
  held_usd: Usd;
  contributors_payable_usd: Usd;
  in_settlement_usd: Usd;
  paid_usd: Usd;
  unpriced_events: number;
  hot_wallet: { address: string; usdc: string | null; native: string | null; error?: string } | null;
  last_settlement: {
    settlement_id: string;
    status: string;
    trigger: string;
    payout_count: number;
    total_usdc: string;
    created_at: string;
    completed_at: string | null;
  } | null;
}

export interface OverviewDaily {
  from: string;
  to: string;
  rows: Array<{ day: string; charged_usd: Usd; revenue_usd: Usd; earned_usd: Usd; paid_usd: Usd }>;
}

/** `pending_usd` appears once earnings mature (PAYOUT_MATURITY_DAYS); shown when present. */
export interface Balances {
  accrued_usd: Usd;
  pending_usd?: Usd;
  payable_usd: Usd;
  in_settlement_usd: Usd;
  paid_usd: Usd;
}

export interface ContributorRow {
  id: string;
  tier: string;
  status: string;
  payout_address: string;
  balances: Balances;
}

/** Proof and cool-down of a payout address (api.md "Contributor trust"). */
export interface PayoutAddressTrust {
  payout_address_proven: boolean;
  payout_address_proven_at: string | null;
  payout_address_changed_at: string | null;
  /** End of the cool-down after the last change; null: none. */
  payout_address_payable_from: string | null;
}

export interface PayoutAddressState extends PayoutAddressTrust {
  contributor_id: string;
  payout_address: string;
}

export interface UsageAuditRow {
  contributor_id: string;
  model: string;
  events: number;
  median_ratio: string;
  model_median_ratio: string | null;
  flagged: boolean;
  flagged_since: string | null;
}

export interface Contributor extends Balances, PayoutAddressTrust {
  id: string;
  tier: string;
  status: string;
  payout_address: string;
  flagged_reason: string | null;
  under_review_since: string | null;
  created_at: string;
  updated_at: string;
  balances: Balances;
}

export interface ContributorBalance extends Balances {
  contributor_id: string;
  tier: string;
}

export type GroupBy = 'day' | 'model' | 'day,model';

export interface EarningsSums {
  events: number;
  prompt_tokens: number;
  completion_tokens: number;
  official_usd: Usd;
  earned_usd: Usd;
}

export interface Earnings {
  contributor_id: string;
  from: string;
  to: string;
  group_by: GroupBy;
  totals: EarningsSums;
  rows: Array<EarningsSums & { day?: string; model?: string }>;
}

export interface Payout {
  payout_id: string;
  settlement_id: string;
  amount_usdc: string;
  status: string;
  tx_hash: string | null;
  confirmed_at: string | null;
  failure_reason?: string | null;
}

export type SettlementStatus = 'pending_approval' | 'queued' | 'submitting' | 'confirmed' | 'partially_failed' | 'failed';

export interface Settlement {
  settlement_id: string;
  status: SettlementStatus | string;
  trigger: string;
  payout_count: number;
  total_usdc: string;
  requires_approval: boolean;
  approved_by: string | null;
  approved_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface SettlementLine {
  line_id: string;
  contributor_id: string;
  payout_address: string;
  amount_usdc: string;
  status: string;
  tx_hash: string | null;
  failure_reason: string | null;
  confirmed_at: string | null;
}

export interface SettlementTx {
  tx_hash: string;
  hash?: string;
  nonce: number;
  attempt: number;
  status: string;
  gas_used: string | null;
  block_number: string | null;
  final: boolean;
  line_count: number;
  error: string | null;
  created_at: string;
}

export interface SettlementDetail extends Settlement {
  lines: SettlementLine[];
  transactions: SettlementTx[];
  reconciliation: unknown;
}

export interface PlannedLine {
  contributor_id: string;
  payout_address: string;
  amount_usdc: string;
}

/** POST /v1/admin/settlements: a dry run, "empty", or the created settlement. */
export interface SettlementCreated {
  settlement_id: string | null;
  status: string;
  payout_count: number;
  total_usdc: string;
  requires_approval?: boolean;
  lines?: PlannedLine[];
}

export interface Price {
  id: string;
  model: string;
  /** Arrives with price variants (api.md); "standard" until then. */
  variant?: string;
  input_usd_per_mtok: Usd;
  output_usd_per_mtok: Usd;
  cached_input_usd_per_mtok: Usd | null;
  effective_from: string;
  source: string;
  created_at: string;
  next?: Price | null;
  /** Arrives with price tiers (api.md). */
  tiers?: Array<Record<string, unknown>>;
  web_search_usd_per_call?: Usd | null;
  web_search_billing?: 'per_call' | 'per_request' | null;
  request_usd?: Usd | null;
}

export interface PriceList {
  data: Price[];
  upcoming?: Price[];
}

export interface NewPriceTier {
  above_input_tokens: number;
  inclusive?: boolean;
  [price: `${string}_usd_per_mtok`]: Usd;
}

/** The admin POST body of api.md "Prices". */
export interface NewPrice {
  model: string;
  variant?: string;
  input_usd_per_mtok: Usd;
  output_usd_per_mtok: Usd;
  cached_input_usd_per_mtok?: Usd;
  effective_from?: string;
  tiers?: NewPriceTier[];
  web_search_usd_per_call?: Usd;
  web_search_billing?: 'per_call' | 'per_request';
  request_usd?: Usd;
}

export interface PriceImportResult {
  effective_from: string;
  imported: number;
  unchanged?: number;
  skipped: Array<{ model: string; reason: string }>;
}

export interface UnpricedModel {
  model: string;
  events: number;
  first_occurred_at: string;
  last_occurred_at: string;
}

export interface UsageEvent {
  event_id: string;
  status: string;
  model: string;
  user_id: string;
  contributor_id: string;
  occurred_at: string;
  usage: Record<string, number>;
  charge_usd?: Usd | null;
  payout_usd?: Usd | null;
}

export interface RepriceResult {
  priced: number;
  still_unpriced: number;
  /** Another reprice was running: this call priced nothing, that run is pricing them. */
  in_progress?: boolean;
}

export interface AuditEntry {
  id: string;
  actor_id: string | null;
  actor_role: string;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  created_at: string;
}

export interface LedgerCheck {
  ok: boolean;
  journal_entries: number;
  postings_sum: Usd;
  unbalanced_entries: number;
  mismatched_accounts: Array<{ account: string; stored_usd: Usd | null; postings_usd: Usd }>;
  held_mismatches: Array<{ account: string; held_usd: Usd; active_holds_usd: Usd }>;
  /** Further checks registered by modules (rollups, chain): each has at least `ok`. */
  [check: string]: unknown;
}

export interface CreatedKey {
  id: string;
  key: string;
  role: Role;
  contributor_id: string | null;
}

export interface ConsoleConfig {
  chain_explorer_tx_url: string | null;
}

/** GET /v1/contributors/:id/statements/:month (docs/statements.md). */
export interface Statement {
  contributor_id: string;
  month: string;
  month_ended?: boolean;
  opening_usd: Usd;
  earned_usd: Usd;
  clawed_back_usd: Usd;
  adjustments_usd: Usd;
  paid_usd: Usd;
  closing_usd: Usd;
  events: number;
  payouts: Array<{ payout_id: string; settlement_id: string; amount_usdc: string; tx_hash: string | null; confirmed_at: string | null }>;
}

/** Refunds and clawbacks (api.md). */
export interface Refund {
  refund_id: string;
  event_id: string;
  user_id?: string;
  contributor_id?: string;
  model?: string;
  amount_usd: Usd;
  contributor_clawback_usd: Usd;
  margin_reversed_usd: Usd;
  refunded_total_usd: Usd;
  clawed_back_total_usd?: Usd;
  reason?: string;
  created_at?: string;
}

export interface NewRefund {
  refund_id: string;
  amount_usd?: Usd;
  reason: string;
}

export interface RefundFilters {
  event_id?: string;
  contributor_id?: string;
  user_id?: string;
}

/** Webhooks (docs/webhooks.md). The secret is in the create answer only. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  contributor_id: string | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  last_success_at: string | null;
  created_at: string;
}

export interface CreatedWebhook extends WebhookEndpoint {
  secret: string;
}

export interface WebhookDelivery {
  delivery_id: string;
  webhook_id: string;
  event: { id: string; type: string; timestamp: string };
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  created_at: string;
}

export interface ReconciliationResolution {
  resolution_id: string;
  settlement_id: string;
  reason: string;
  resolved_by: string;
  resolved_at: string;
}
