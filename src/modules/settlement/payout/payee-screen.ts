// The payee checks made when a line is sent (api.md "Payout safety"): a line is paid to its
// contributor's address and status as they are at that moment, not as they were when the
// settlement was created or approved.
import { Inject, Injectable } from '@nestjs/common';
import { isAddressEqual } from 'viem';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import type { SqlClient } from '../../../database/database.service.js';
import { ContributorsService } from '../../contributors/contributors.service.js';
import type { PayeeState } from '../../contributors/contributors.types.js';
import { PayoutAddressPolicy, type PayoutAddressRefusal } from '../../payout-safety/payout-address-policy.service.js';
import type { LineFailureReason, SettlementLineRecord } from '../creation/settlement.types.js';

export interface LineRefusal {
  line: SettlementLineRecord;
  reason: LineFailureReason;
  detail: string;
}

/** The contributor-trust rules in force (api.md "Contributor trust"), read from the configuration. */
export interface TrustRules {
  /** PAYOUT_ADDRESS_PROOF=required: only proven addresses are paid. */
  proofRequired: boolean;
  /** PAYOUT_ADDRESS_COOLDOWN_HOURS (0: off). */
  cooldownHours: number;
  /** USAGE_AUDIT_HOLD: a contributor under review is paid nothing. */
  auditHold: boolean;
  /** When the line is sent. */
  now: Date;
}

/** The rules of api.md's defaults: nothing beyond the address checks. */
export const NO_TRUST_RULES: Omit<TrustRules, 'now'> = { proofRequired: false, cooldownHours: 0, auditHold: false };

/** Pure: why this line must not be sent to this payee now, or null. */
export function payeeRefusal(
  line: Pick<SettlementLineRecord, 'contributorId' | 'payoutAddress'>,
  payee: PayeeState | undefined,
  screen: (address: string) => PayoutAddressRefusal | null,
  rules: TrustRules = { ...NO_TRUST_RULES, now: new Date() },
): { reason: LineFailureReason; detail: string } | null {
  if (!payee || payee.status !== 'active') {
    return { reason: 'contributor_suspended', detail: `contributor ${line.contributorId} is ${payee ? payee.status : 'not registered'}` };
  }
  if (!isAddressEqual(payee.payoutAddress, line.payoutAddress)) {
    return { reason: 'payout_address_changed', detail: `payout address changed from ${line.payoutAddress} to ${payee.payoutAddress} after the settlement was created` };
  }
  const refused = screen(line.payoutAddress);
  if (refused) return { reason: refused.kind, detail: refused.reason };
  if (rules.auditHold && payee.underReviewSince !== null) {
    return { reason: 'under_review', detail: `contributor ${line.contributorId} is under review by the usage audit since ${payee.underReviewSince.toISOString()}` };
  }
  if (rules.proofRequired && payee.payoutAddressProvenAt === null) {
    return { reason: 'address_unproven', detail: `payout address ${payee.payoutAddress} is not proven (PAYOUT_ADDRESS_PROOF=required)` };
  }
  if (rules.cooldownHours > 0 && payee.payoutAddressChangedAt !== null) {
    const payableFromMs = payee.payoutAddressChangedAt.getTime() + rules.cooldownHours * 3600_000;
    if (rules.now.getTime() < payableFromMs) {
      return { reason: 'address_cooling_down', detail: `payout address changed at ${payee.payoutAddressChangedAt.toISOString()}: payable from ${new Date(payableFromMs).toISOString()}` };
    }
  }
  return null;
}

/** Locks each line's contributor and screens the line; the caller fails the refused lines in the same transaction. */
@Injectable()
export class PayeeScreenService {
  constructor(
    private readonly contributors: ContributorsService,
    private readonly policy: PayoutAddressPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async refusals(client: SqlClient, lines: readonly SettlementLineRecord[]): Promise<LineRefusal[]> {
    if (lines.length === 0) return [];
    const payees = await this.contributors.lockPayees(client, lines.map((l) => l.contributorId));
    const screen = this.policy.screener();
    const rules: TrustRules = {
      proofRequired: this.config.PAYOUT_ADDRESS_PROOF === 'required',
      cooldownHours: this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS,
      auditHold: this.config.USAGE_AUDIT_HOLD,
      now: new Date(),
    };
    const refusals: LineRefusal[] = [];
    for (const line of lines) {
      const refusal = payeeRefusal(line, payees.get(line.contributorId), screen, rules);
      if (refusal) refusals.push({ line, ...refusal });
    }
    return refusals;
  }
}
