export type PayoutChainErrorCode =
  | 'invalid-payout-lines'
  | 'simulation-failed'
  | 'nonce-consumed'
  | 'log-range-too-wide'
  | 'receipt-inconsistent';

/** Expected chain-layer failures, with a code the payout worker can branch on. */
export class PayoutChainError extends Error {
  constructor(
    readonly code: PayoutChainErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PayoutChainError';
  }
}
