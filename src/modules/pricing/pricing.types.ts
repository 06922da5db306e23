// Shared shapes of the price catalog; amounts in atto-USD per million tokens.

export interface PriceVersion {
  id: bigint;
  model: string;
  inputAttoPerMtok: bigint;
  outputAttoPerMtok: bigint;
  /** null: the model has no cached-input price; cached tokens bill at the input price. */
  cachedInputAttoPerMtok: bigint | null;
  effectiveFrom: Date;
}

/** An immutable view of all price versions, answering "which price was in force". */
export interface PriceBook {
  priceAt(model: string, at: Date): PriceVersion | null;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}
