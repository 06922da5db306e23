// The console's wire types: every one is the SDK's generated type (sdk/src/generated/openapi.ts,
// `npm run sdk:generate` from the API's own /docs-json), so none can fall behind the server. Money
// stays a decimal string. A new answer the console reads gets its response schema on the server
// first (test/console/console-api.e2e-spec.ts lists the endpoints), then its alias here.
import type { components, operations } from '../../../sdk/src/generated/openapi';

type Schemas = components['schemas'];

export type Overview = Schemas['OverviewResponseDto'];
/** A decimal USD string, as every money field of the API. */
export type Usd = Overview['charged_usd'];
export type OverviewDaily = Schemas['OverviewDailyResponseDto'];
export type ContributorRow = Schemas['ContributorListResponseDto']['data'][number];
export type ContributorPage = Schemas['ContributorListResponseDto'];
export type Balances = Schemas['ContributorBalances'];
export type Contributor = Schemas['ContributorWithBalancesResponseDto'];
export type PayoutAddressState = Schemas['PayoutAddressStateResponseDto'];
export type PayoutAddressChallenge = Schemas['PayoutAddressChallengeResponseDto'];
export type ProvenContributor = Schemas['ContributorResponseDto'];
export type PayoutAddressTrust = Pick<PayoutAddressState, 'payout_address_proven' | 'payout_address_proven_at' | 'payout_address_changed_at' | 'payout_address_payable_from'>;
export type UsageAuditRow = Schemas['UsageAuditResponseDto']['data'][number];
export type UsageAudit = Schemas['UsageAuditResponseDto'];
export type Review = Schemas['ReviewResponseDto'];
export type ContributorBalance = Schemas['BalanceResponseDto'];
export type Earnings = Schemas['EarningsResponseDto'];
export type GroupBy = Earnings['group_by'];
export type EarningsSums = Earnings['totals'];
export type NewPrice = Schemas['CreatePriceDto'];
export type NewPriceTier = NonNullable<NewPrice['tiers']>[number];
export type PriceImportResult = Schemas['PriceImportResponseDto'];
export type RepriceResult = Schemas['RepriceResponseDto'];
export type AuditEntry = Schemas['AuditLogResponseDto']['data'][number];
export type AuditLogPage = Schemas['AuditLogResponseDto'];
export type Statement = Schemas['StatementResponseDto'];
export type Refund = Schemas['RefundResponseDto'];
export type NewRefund = Schemas['RefundBodyDto'];
export type RefundPage = Schemas['RefundListResponseDto'];
export type RefundFilters = Pick<NonNullable<operations['RefundsController_list']['parameters']['query']>, 'event_id' | 'contributor_id' | 'user_id'>;

/** A cursor page of the API (`next_cursor` null on the last one). */
export type Page<T> = Omit<Schemas['RefundListResponseDto'], 'data'> & { data: T[] };

export type Whoami = Schemas['WhoamiResponseDto'];
export type Role = Whoami['role'];
export type CreatedKey = Schemas['ApiKeyCreatedResponseDto'];

export type Price = Schemas['PriceResponseDto'];
/** GET /v1/admin/prices without ?model: the versions in force (each with its next one) and those scheduled. */
export type PriceList = Schemas['PriceListResponseDto'];
export type PriceInForce = PriceList['data'][number];
export type PriceVersions = Schemas['PriceVersionsResponseDto'];

export type WebhookEndpoint = Schemas['WebhookEndpointResponseDto'];
export type CreatedWebhook = Schemas['WebhookCreatedResponseDto'];
export type WebhookList = Schemas['WebhookListResponseDto'];
export type WebhookEventTypes = Schemas['WebhookEventTypesResponseDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryResponseDto'];
export type WebhookDeliveryPage = Schemas['WebhookDeliveryListResponseDto'];

export type Payout = Schemas['PayoutListResponseDto']['data'][number];
export type PayoutPage = Schemas['PayoutListResponseDto'];
export type Settlement = Schemas['SettlementResponseDto'];
export type SettlementStatus = Settlement['status'];
export type SettlementPage = Schemas['SettlementListResponseDto'];
export type SettlementDetail = Schemas['SettlementDetailResponseDto'];
export type SettlementLine = SettlementDetail['lines'][number];
export type SettlementTx = SettlementDetail['transactions'][number];
export type SettlementCreated = Schemas['CreatedSettlementResponseDto'];
export type PlannedLine = NonNullable<SettlementCreated['lines']>[number];
export type ReconciliationResolution = Schemas['ReconciliationResolutionResponseDto'];

export type UnpricedByModel = Schemas['UnpricedByModelResponseDto'];
export type UnpricedModel = UnpricedByModel['data'][number];
export type LedgerCheck = Schemas['LedgerCheckResponseDto'];

export type UsageEventsPage = Schemas['UsageEventsPageDto'];
export type UsageEventRow = UsageEventsPage['data'][number];
export type UsageSummary = Schemas['UsageSummaryDto'];
export type SummaryGroupBy = UsageSummary['group_by'];
export type UsageFilters = Partial<Record<'status' | 'user_id' | 'contributor_id' | 'model' | 'key_id' | 'from' | 'to', string>>;
export type ApiKeyPage = Schemas['ApiKeyListResponseDto'];
export type ApiKeyRow = ApiKeyPage['data'][number];
export type UserPage = Schemas['UserListResponseDto'];
export type UserRow = UserPage['data'][number];
/** One credit grant as GET /v1/users/:id/balance lists it (an expired one shows remaining 0). */
export interface UserGrant {
  grant_id: string;
  name: string | null;
  amount_usd: string;
  remaining_usd: string;
  expires_at: string;
}
/** GET /v1/users/:id/balance and a credit's answer: the listed user's money fields and the user's grants. */
export type UserBalance = Pick<UserRow, 'user_id' | 'balance_usd' | 'held_usd' | 'available_usd' | 'granted_usd'> & { grants: UserGrant[] };
