import { getAddress } from 'viem';
import { PayoutChainError } from './payout-chain.errors.js';
import {
  PAYOUT_LINE_AMOUNT_MICRO_USDC_MAX,
  PAYOUT_LINES_PER_BATCH_MAX,
  decodePayoutLine,
  encodePayoutLines,
  sumPayoutLinesMicroUsdc,
} from './payout-lines.js';

const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const BOB = getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');

describe('payout lines', () => {
  it('packs the amount above the 160 address bits', () => {
    const [word] = encodePayoutLines([{ recipient: ALICE, amountMicroUsdc: 12_500_000n }]);
    expect(word).toBe((12_500_000n << 160n) | BigInt(ALICE));
  });

  it('round-trips lines, including the largest amount', () => {
    const lines = [
      { recipient: ALICE, amountMicroUsdc: 1n },
      { recipient: BOB, amountMicroUsdc: PAYOUT_LINE_AMOUNT_MICRO_USDC_MAX },
    ];
    expect(encodePayoutLines(lines).map(decodePayoutLine)).toEqual(lines);
  });

  it('sums amounts as bigint', () => {
    const lines = [
      { recipient: ALICE, amountMicroUsdc: 2n ** 90n },
      { recipient: BOB, amountMicroUsdc: 3n },
    ];
    expect(sumPayoutLinesMicroUsdc(lines)).toBe(2n ** 90n + 3n);
  });

  it.each([
    ['no lines', []],
    ['a zero amount', [{ recipient: ALICE, amountMicroUsdc: 0n }]],
    ['a negative amount', [{ recipient: ALICE, amountMicroUsdc: -1n }]],
    ['an amount over 96 bits', [{ recipient: ALICE, amountMicroUsdc: PAYOUT_LINE_AMOUNT_MICRO_USDC_MAX + 1n }]],
    ['the zero address', [{ recipient: '0x0000000000000000000000000000000000000000', amountMicroUsdc: 1n }]],
    ['a malformed address', [{ recipient: '0x1234', amountMicroUsdc: 1n }]],
    ['too many lines', Array.from({ length: PAYOUT_LINES_PER_BATCH_MAX + 1 }, () => ({ recipient: ALICE, amountMicroUsdc: 1n }))],
  ] as const)('rejects %s', (_name, lines) => {
    expect(() => encodePayoutLines(lines as never)).toThrow(PayoutChainError);
  });
});
