export { LedgerClient, type LedgerClientOptions, type FlushResult, type HoldResult, type UsageEventResult, type CreateHoldBody } from './client.js';
export { ledgerFetch, type LedgerFetchOptions, usageFromOpenAi } from './ledger-fetch.js';
export { ledgerMiddleware, type LedgerMiddlewareOptions, usageFromAiSdk } from './ledger-middleware.js';
export { type Attribution, type AttributionFn, LedgerAttributionError } from './attribution.js';
export * from './errors.js';
export { DEFAULT_RETRY_POLICY, retryDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry.js';
export { countPromptTokens } from './prompt-tokens.js';
export type { LedgerReport, StreamReportQuery, UsageEventBody } from './reports.js';
export type { paths, components, operations } from './generated/openapi.js';
