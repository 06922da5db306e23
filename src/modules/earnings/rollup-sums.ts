// In earnings (the reader of contributor_usage_daily) rather than usage (its writer), so that
// usage points down at earnings for this shape and earnings never imports usage.
/** The sums contributor_usage_daily keeps per row (written by the usage writer, read by earnings). */
export interface RollupSums {
  events: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  /** Cache reads (part of prompt tokens). */
  cachedTokens: bigint;
  /** Cache writes, 5-minute and 1-hour (part of prompt tokens). */
  cacheWriteTokens: bigint;
  /** Audio input and output tokens. */
  audioTokens: bigint;
  officialAtto: bigint;
  earnedAtto: bigint;
  chargeAtto: bigint;
  marginAtto: bigint;
}
