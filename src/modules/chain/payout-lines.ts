// Packed payout lines for BatchPayout.executeBatch: one uint256 per recipient,
// amount in the high 96 bits and recipient in the low 160 bits.
import { getAddress, isAddress, type Address } from 'viem';
import { PayoutChainError } from './payout-chain.errors.js';

export interface PayoutLine {
  recipient: Address;
  amountMicroUsdc: bigint;
}

/** Keeps one batch well under a block (about 28,000 gas a line) and a receipt easy to parse. */
export const PAYOUT_LINES_PER_BATCH_MAX = 250;
const AMOUNT_BITS = 96n;
const ADDRESS_BITS = 160n;
export const PAYOUT_LINE_AMOUNT_MICRO_USDC_MAX = (1n << AMOUNT_BITS) - 1n;
const ADDRESS_MASK = (1n << ADDRESS_BITS) - 1n;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export function encodePayoutLines(lines: readonly PayoutLine[]): bigint[] {
  assertPayoutLines(lines);
  return lines.map((line) => (line.amountMicroUsdc << ADDRESS_BITS) | BigInt(line.recipient));
}

export function decodePayoutLine(word: bigint): PayoutLine {
  const recipientHex = `0x${(word & ADDRESS_MASK).toString(16).padStart(40, '0')}` as const;
  return { recipient: getAddress(recipientHex), amountMicroUsdc: word >> ADDRESS_BITS };
}

export function sumPayoutLinesMicroUsdc(lines: readonly PayoutLine[]): bigint {
  return lines.reduce((total, line) => total + line.amountMicroUsdc, 0n);
}

/** Rejects what the contract would pay wrongly or not at all, before anything is signed. */
export function assertPayoutLines(lines: readonly PayoutLine[]): void {
  if (lines.length === 0) throw invalid('a batch needs at least one line');
  if (lines.length > PAYOUT_LINES_PER_BATCH_MAX) {
    throw invalid(`${lines.length} lines exceed PAYOUT_LINES_PER_BATCH_MAX ${PAYOUT_LINES_PER_BATCH_MAX}`);
  }
  lines.forEach((line, index) => {
    if (!isAddress(line.recipient, { strict: false }) || line.recipient.toLowerCase() === ZERO_ADDRESS) {
      throw invalid(`line ${index}: invalid recipient ${line.recipient}`);
    }
    if (typeof line.amountMicroUsdc !== 'bigint' || line.amountMicroUsdc <= 0n) {
      throw invalid(`line ${index}: amount must be a positive bigint`);
    }
    if (line.amountMicroUsdc > PAYOUT_LINE_AMOUNT_MICRO_USDC_MAX) {
      throw invalid(`line ${index}: amount ${line.amountMicroUsdc} does not fit in 96 bits`);
    }
  });
}

function invalid(message: string): PayoutChainError {
  return new PayoutChainError('invalid-payout-lines', message);
}
