// Rules every price version obeys, whether it arrives through the API or a LiteLLM import.
import { ATTO_PER_USD } from '../../common/money/index.js';

export const MODEL_NAME_LENGTH_MAX = 200;
/** Printable ASCII without whitespace: "openai/gpt-4o", "claude-sonnet-4-5-20250929-v1:0". */
export const MODEL_NAME_PATTERN = /^[\x21-\x7E]+$/;
/** Prices are per million tokens with at most 6 decimals of USD (see design.md, Money). */
export const PRICE_DECIMALS_MAX = 6;
/** Sanity bound far above any list price; a bigger value is a typo (or a per-token value). */
export const PRICE_USD_PER_MTOK_MAX = 1_000_000n;
export const PRICE_ATTO_PER_MTOK_MAX = PRICE_USD_PER_MTOK_MAX * ATTO_PER_USD;

export function isValidModelName(model: string): boolean {
  return model.length >= 1 && model.length <= MODEL_NAME_LENGTH_MAX && MODEL_NAME_PATTERN.test(model);
}
