// One function per endpoint the console uses, grouped by api.md section. A screen for a new API
// (refunds, statements, webhooks) starts with its functions here and its keys in queryKeys.
import { apiBlob, apiJson } from './client';
import type {
  ApiKeyPage,
  AuditLogPage,
  SummaryGroupBy,
  UsageEventsPage,
  UsageFilters,
  UsageSummary,
  UserBalance,
  UserPage,
  PayoutAddressChallenge,
  ProvenContributor,
  Contributor,
  ContributorBalance,
  ContributorPage,
  CreatedKey,
  CreatedWebhook,
  Earnings,
  GroupBy,
  LedgerCheck,
  NewPrice,
  NewRefund,
  Overview,
  OverviewDaily,
  PayoutAddressState,
  PayoutPage,
  Price,
  PriceImportResult,
  PriceList,
  PriceVersions,
  ReconciliationResolution,
  Refund,
  RefundFilters,
  RefundPage,
  RepriceResult,
  Review,
  Settlement,
  SettlementCreated,
  SettlementDetail,
  SettlementPage,
  Statement,
  UnpricedByModel,
  UsageAudit,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEventTypes,
  WebhookList,
  Whoami,
} from './wire';

/**
 * /console/config.json: the console's own settings file (src/common/http/console-static.ts), served
 * beside the built files and not part of the API, so it has no place in the OpenAPI document.
 */
export interface ConsoleConfig {
  chain_explorer_tx_url: string | null;
}

const id = (value: string) => encodeURIComponent(value);

export const queryKeys = {
  whoami: ['whoami'] as const,
  config: ['console-config'] as const,
  overview: ['overview'] as const,
  overviewDaily: (from: string, to: string) => ['overview-daily', from, to] as const,
  contributors: (q: string) => ['contributors', q] as const,
  contributor: (contributorId: string) => ['contributor', contributorId] as const,
  balance: (contributorId: string) => ['balance', contributorId] as const,
  earnings: (contributorId: string, groupBy: GroupBy, from: string, to: string) => ['earnings', contributorId, groupBy, from, to] as const,
  payouts: (contributorId: string) => ['payouts', contributorId] as const,
  settlements: ['settlements'] as const,
  settlement: (settlementId: string) => ['settlement', settlementId] as const,
  prices: ['prices'] as const,
  priceHistory: (model: string) => ['price-history', model] as const,
  unpriced: ['unpriced-by-model'] as const,
  auditLog: ['audit-log'] as const,
  usageAudit: ['usage-audit'] as const,
  payoutAddress: (contributorId: string) => ['payout-address', contributorId] as const,
  ledgerCheck: ['ledger-check'] as const,
  statement: (contributorId: string, month: string) => ['statement', contributorId, month] as const,
  refunds: (filters: RefundFilters) => ['refunds', filters] as const,
  webhooks: ['webhooks'] as const,
  webhookDeliveries: (webhookId: string) => ['webhook-deliveries', webhookId] as const,
  usageEvents: (filters: UsageFilters) => ['usage-events', filters] as const,
  usageSummary: (groupBy: SummaryGroupBy, filters: UsageFilters) => ['usage-summary', groupBy, filters] as const,
  apiKeys: (role: string) => ['api-keys', role] as const,
  users: (q: string) => ['users', q] as const,
};

export type StatementFormat = 'csv' | 'pdf';

export const api = {
  // Keys
  whoami: (apiKey?: string) => apiJson<Whoami>('/v1/me', { apiKey }),
  createContributorKey: (contributorId: string, name: string) =>
    apiJson<CreatedKey>('/v1/admin/api-keys', { method: 'POST', json: { role: 'contributor', contributor_id: contributorId, name } }),
  config: () => apiJson<ConsoleConfig>('/console/config.json'),
  apiKeys: (role: string, cursor?: string) => apiJson<ApiKeyPage>('/v1/admin/api-keys', { query: { role: role || undefined, cursor, limit: 50 } }),
  createKey: (body: { role: string; contributor_id?: string; name?: string }) => apiJson<CreatedKey>('/v1/admin/api-keys', { method: 'POST', json: body }),
  revokeKey: (keyId: string) => apiJson<void>(`/v1/admin/api-keys/${id(keyId)}`, { method: 'DELETE' }),

  // Users and credit
  users: (q: string, cursor?: string) => apiJson<UserPage>('/v1/admin/users', { query: { q: q || undefined, cursor, limit: 50 } }),
  userBalance: (userId: string) => apiJson<UserBalance>(`/v1/users/${id(userId)}/balance`),
  credit: (userId: string, body: { amount_usd: string; reference: string; reason?: string; grant?: { expires_at: string; name?: string } }) =>
    apiJson<UserBalance>(`/v1/admin/users/${id(userId)}/credits`, { method: 'POST', json: body }),

  // Usage events explorer
  usageEvents: (filters: UsageFilters, cursor?: string) => apiJson<UsageEventsPage>('/v1/admin/usage-events', { query: { ...filters, cursor, limit: 100 } }),
  usageEventsCsv: (filters: UsageFilters) => apiBlob('/v1/admin/usage-events', { query: { ...filters }, accept: 'text/csv' }),
  usageSummary: (groupBy: SummaryGroupBy, filters: UsageFilters) => {
    const { status: _status, ...rest } = filters;
    return apiJson<UsageSummary>('/v1/admin/usage/summary', { query: { ...rest, group_by: groupBy } });
  },

  // Overview and checks
  overview: () => apiJson<Overview>('/v1/admin/overview'),
  overviewDaily: (from: string, to: string) => apiJson<OverviewDaily>('/v1/admin/overview/daily', { query: { from, to } }),
  ledgerCheck: () => apiJson<LedgerCheck>('/v1/admin/ledger/check'),
  usageAudit: () => apiJson<UsageAudit>('/v1/admin/usage-audit'),
  review: (contributorId: string, decision: 'clear' | 'suspend', reason: string) =>
    apiJson<Review>(`/v1/admin/contributors/${id(contributorId)}/review`, { method: 'POST', json: { decision, reason } }),
  payoutAddress: (contributorId: string) => apiJson<PayoutAddressState>(`/v1/contributors/${id(contributorId)}/payout-address`),
  payoutAddressChallenge: (contributorId: string, address: string) =>
    apiJson<PayoutAddressChallenge>(`/v1/contributors/${id(contributorId)}/payout-address/challenge`, { query: { address } }),
  provePayoutAddress: (contributorId: string, body: { address: string; signature: string; nonce: string }) =>
    apiJson<ProvenContributor>(`/v1/contributors/${id(contributorId)}/payout-address`, { method: 'POST', json: body }),
  auditLog: (cursor?: string) => apiJson<AuditLogPage>('/v1/admin/audit-log', { query: { limit: 50, cursor } }),

  // Contributors
  contributors: (q: string, cursor?: string) => apiJson<ContributorPage>('/v1/admin/contributors', { query: { q, cursor, limit: 50 } }),
  contributor: (contributorId: string) => apiJson<Contributor>(`/v1/admin/contributors/${id(contributorId)}`),
  putContributor: (contributorId: string, body: { tier: string; payout_address: string; status?: string; allow_contract?: boolean }) =>
    apiJson<Contributor>(`/v1/admin/contributors/${id(contributorId)}`, { method: 'PUT', json: body }),

  // Contributor earnings (a contributor key for itself, admin for any)
  balance: (contributorId: string) => apiJson<ContributorBalance>(`/v1/contributors/${id(contributorId)}/balance`),
  earnings: (contributorId: string, groupBy: GroupBy, from: string, to: string) =>
    apiJson<Earnings>(`/v1/contributors/${id(contributorId)}/earnings`, { query: { group_by: groupBy, from, to } }),
  earningsCsv: (contributorId: string, groupBy: GroupBy, from: string, to: string) =>
    apiBlob(`/v1/contributors/${id(contributorId)}/earnings.csv`, { query: { group_by: groupBy, from, to }, accept: 'text/csv' }),
  payouts: (contributorId: string, cursor?: string) => apiJson<PayoutPage>(`/v1/contributors/${id(contributorId)}/payouts`, { query: { cursor, limit: 50 } }),

  // Settlements
  settlements: (cursor?: string) => apiJson<SettlementPage>('/v1/admin/settlements', { query: { cursor, limit: 50 } }),
  settlement: (settlementId: string) => apiJson<SettlementDetail>(`/v1/admin/settlements/${id(settlementId)}`),
  createSettlement: (dryRun: boolean) => apiJson<SettlementCreated>('/v1/admin/settlements', { method: 'POST', json: { dry_run: dryRun } }),
  approveSettlement: (settlementId: string) => apiJson<Settlement>(`/v1/admin/settlements/${id(settlementId)}/approve`, { method: 'POST', json: {} }),

  // Prices and unpriced usage
  prices: () => apiJson<PriceList>('/v1/admin/prices'),
  priceHistory: (model: string) => apiJson<PriceVersions>('/v1/admin/prices', { query: { model } }),
  createPrice: (price: NewPrice) => apiJson<Price>('/v1/admin/prices', { method: 'POST', json: price }),
  importPrices: (catalogText: string, effectiveFrom?: string) =>
    apiJson<PriceImportResult>('/v1/admin/prices/import', { method: 'POST', text: catalogText, query: { effective_from: effectiveFrom } }),
  unpricedByModel: () => apiJson<UnpricedByModel>('/v1/admin/usage-events/unpriced-by-model'),
  reprice: () => apiJson<RepriceResult>('/v1/admin/usage-events/reprice', { method: 'POST', json: {} }),
  resolveReconciliation: (settlementId: string, reason: string) =>
    apiJson<ReconciliationResolution>(`/v1/admin/settlements/${id(settlementId)}/reconciliation/resolve`, { method: 'POST', json: { reason } }),

  // Statements (a contributor key for itself, admin for any)
  statement: (contributorId: string, month: string) => apiJson<Statement>(`/v1/contributors/${id(contributorId)}/statements/${id(month)}`),
  statementFile: (contributorId: string, month: string, format: StatementFormat) =>
    apiBlob(`/v1/contributors/${id(contributorId)}/statements/${id(month)}`, { accept: format === 'csv' ? 'text/csv' : 'application/pdf' }),

  // Refunds and clawbacks
  createRefund: (eventId: string, body: NewRefund) => apiJson<Refund>(`/v1/admin/usage-events/${id(eventId)}/refunds`, { method: 'POST', json: body }),
  refunds: (filters: RefundFilters, cursor?: string) => apiJson<RefundPage>('/v1/admin/refunds', { query: { ...filters, cursor, limit: 50 } }),

  // Webhooks
  webhooks: () => apiJson<WebhookList>('/v1/admin/webhooks'),
  createWebhook: (body: { url: string; events: string[]; description?: string }) => apiJson<CreatedWebhook>('/v1/admin/webhooks', { method: 'POST', json: body }),
  removeWebhook: (webhookId: string) => apiJson<void>(`/v1/admin/webhooks/${id(webhookId)}`, { method: 'DELETE' }),
  enableWebhook: (webhookId: string) => apiJson<WebhookEndpoint>(`/v1/admin/webhooks/${id(webhookId)}/enable`, { method: 'POST', json: {} }),
  webhookEventTypes: () => apiJson<WebhookEventTypes>('/v1/admin/webhooks/event-types'),
  webhookDeliveries: (webhookId: string, cursor?: string) =>
    apiJson<WebhookDeliveryPage>(`/v1/admin/webhooks/${id(webhookId)}/deliveries`, { query: { cursor, limit: 50 } }),
  retryDelivery: (webhookId: string, deliveryId: string) =>
    apiJson<WebhookDelivery>(`/v1/admin/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/retry`, { method: 'POST', json: {} }),
};
