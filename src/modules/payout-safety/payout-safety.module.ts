import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { PayoutChainModule } from '../chain/payout-chain.module.js';
import { AddressProofVerifier } from './address-proof-verifier.js';
import { PAYOUT_DENYLIST, PayoutAddressPolicy } from './payout-address-policy.service.js';
import { PayoutDenylistFile } from './payout-denylist.js';

/** Which addresses may receive payouts: used by the contributor registry and the payout sender. */
@Module({
  imports: [PayoutChainModule],
  providers: [
    { provide: PAYOUT_DENYLIST, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new PayoutDenylistFile(config.PAYOUT_DENYLIST_FILE) },
    PayoutAddressPolicy,
    AddressProofVerifier,
  ],
  exports: [PayoutAddressPolicy, AddressProofVerifier],
})
export class PayoutSafetyModule {}
