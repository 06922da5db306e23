// The part of the USDC token (Circle's FiatToken) the payout client reads. Written by hand rather
// than generated: production talks to the real token, whose ABI the test token only imitates
// (TestUSDC lives in contracts/test-contracts.ts, outside src/).
import { parseAbi } from 'viem';

export const usdcAbi = parseAbi([
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function paused() view returns (bool)',
  'function isBlacklisted(address account) view returns (bool)',
]);
