// The payee checks made when a line is sent (api.md "Payout safety"): a line is paid to its
// contributor's address and status as they are at that moment, not as they were when the
// settlement was created or approved.
import { Injectable } from '@nestjs/common';
import { isAddressEqual } from 'viem';
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

/** Pure: why this line must not be sent to this payee now, or null. */
export function payeeRefusal(
  line: Pick<SettlementLineRecord, 'contributorId' | 'payoutAddress'>,
  payee: PayeeState | undefined,
  screen: (address: string) => PayoutAddressRefusal | null,
): { reason: LineFailureReason; detail: string } | null {
  if (!payee || payee.status !== 'active') {
    return { reason: 'contributor_suspended', detail: `contributor ${line.contributorId} is ${payee ? payee.status : 'not registered'}` };
  }
  if (!isAddressEqual(payee.payoutAddress, line.payoutAddress)) {
    return { reason: 'payout_address_changed', detail: `payout address changed from ${line.payoutAddress} to ${payee.payoutAddress} after the settlement was created` };
  }
  const refused = screen(line.payoutAddress);
  return refused ? { reason: refused.kind, detail: refused.reason } : null;
}

/** Locks each line's contributor and screens the line; the caller fails the refused lines in the same transaction. */
@Injectable()
export class PayeeScreenService {
  constructor(
    private readonly contributors: ContributorsService,
    private readonly policy: PayoutAddressPolicy,
  ) {}

  async refusals(client: SqlClient, lines: readonly SettlementLineRecord[]): Promise<LineRefusal[]> {
    if (lines.length === 0) return [];
    const payees = await this.contributors.lockPayees(client, lines.map((l) => l.contributorId));
    const screen = this.policy.screener();
    const refusals: LineRefusal[] = [];
    for (const line of lines) {
      const refusal = payeeRefusal(line, payees.get(line.contributorId), screen);
      if (refusal) refusals.push({ line, ...refusal });
    }
    return refusals;
  }
}
