import { Module } from '@nestjs/common';
import { PAYOUT_CHAIN, payoutChainProvider } from './payout-chain.provider.js';

/**
 * The one payout chain client of an app (PAYOUT_CHAIN): the settlement module signs with it, the
 * payout address policy (contributors) reads contract code and the infrastructure addresses.
 */
@Module({
  providers: [payoutChainProvider],
  exports: [PAYOUT_CHAIN],
})
export class PayoutChainModule {}
