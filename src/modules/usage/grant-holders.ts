// A per-process hint, never a source of truth: users last seen with an unexpired credit grant.
// Their groups go straight to the transaction path instead of the one statement, which would
// find the grant (its guard) and roll back. A user missing here costs one rolled-back statement;
// one here without grants any more costs the slower path until the remembered expiry passes.
import { userAccount } from '../ledger/account-codes.js';
import type { PlannedEvent } from './usage.types.js';

const REMEMBERED_MAX = 10_000;

export class GrantHolders {
  /** user account code -> grants_until. */
  private readonly until = new Map<string, number>();

  saw(grantsUntil: ReadonlyMap<string, Date>): void {
    if (this.until.size + grantsUntil.size > REMEMBERED_MAX) this.until.clear();
    for (const [code, at] of grantsUntil) this.until.set(code, at.getTime());
  }

  anyOf(plans: readonly PlannedEvent[], at: Date): boolean {
    if (this.until.size === 0) return false;
    const now = at.getTime();
    return plans.some((p) => (this.until.get(userAccount(p.event.userId)) ?? 0) > now);
  }
}
