// The console's wire types. Those the API's OpenAPI document describes are the SDK's generated
// types (sdk/src/generated/openapi.ts, `npm run sdk:generate`), so they cannot fall behind the
// server; money stays a decimal string. The shapes below the line are answers /docs-json does not
// describe yet (no response schema on their endpoints): hand-written until the server declares them.
import type { components } from '../../../sdk/src/generated/openapi';

type Schemas = components['schemas'];

export type Usd = string;
export type Overview = Schemas['OverviewResponseDto'];
export type OverviewDaily = Schemas['OverviewDailyResponseDto'];
export type ContributorRow = Schemas['ContributorListResponseDto']['data'][number];
export type Balances = ContributorRow['balances'];
export type Contributor = Schemas['ContributorWithBalancesResponseDto'];
export type PayoutAddressState = Schemas['PayoutAddressStateResponseDto'];
export type PayoutAddressChallenge = Schemas['PayoutAddressChallengeResponseDto'];
export type ProvenContributor = Schemas['ContributorResponseDto'];
export type PayoutAddressTrust = Pick<PayoutAddressState, 'payout_address_proven' | 'payout_address_proven_at' | 'payout_address_changed_at' | 'payout_address_payable_from'>;
export type UsageAuditRow = Schemas['UsageAuditResponseDto']['data'][number];
export type ContributorBalance = Schemas['BalanceResponseDto'];
export type Earnings = Schemas['EarningsResponseDto'];
export type GroupBy = Earnings['group_by'];
export type EarningsSums = Earnings['totals'];
export type NewPrice = Schemas['CreatePriceDto'];
export type NewPriceTier = NonNullable<NewPrice['tiers']>[number];
export type PriceImportResult = Schemas['PriceImportResponseDto'];
export type RepriceResult = Schemas['RepriceResponseDto'];
export type AuditEntry = Schemas['AuditLogResponseDto']['data'][number];
export type Statement = Schemas['StatementResponseDto'];
export type Refund = Schemas['RefundResponseDto'];
export type NewRefund = Schemas['RefundBodyDto'];

// ---- not in /docs-json yet, or described wrongly ----
// Whoami, Price, PriceList, WebhookEndpoint and CreatedWebhook: the document renders their nullable
// fields (`z.string().nullable()`) as arrays of strings, so the generated types are wrong there;
// hand-written until the server's document is fixed. The others have no response schema yet.

export type Role = 'admin' | 'gateway' | 'contributor';


export interface Whoami {
  key_id: string;
  role: Role;
  contributor_id: string | null;
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

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
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

export interface SettlementCreated {
  settlement_id: string | null;
  status: string;
  payout_count: number;
  total_usdc: string;
  requires_approval?: boolean;
  lines?: PlannedLine[];
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

export interface RefundFilters {
  event_id?: string;
  contributor_id?: string;
  user_id?: string;
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
