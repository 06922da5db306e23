// Pure rules of credit grants (docs/spend-controls.md "Credit grants"): which grants pay a charge
// and how much, and where a refund of grant-paid spend goes. No I/O: the grants service feeds
// it rows read under the user's account lock, and grant-allocation.spec.ts checks it by property.

export interface GrantFunds {
  grantId: string;
  expiresAt: Date;
  /** What is left in the grant's account. */
  remainingAtto: bigint;
}

export interface GrantDraw {
  grantId: string;
  amountAtto: bigint;
}

/** A grant can pay a charge made strictly before its expiry (at expires_at it has expired). */
export const grantUsableAt = (grant: { expiresAt: Date }, at: Date): boolean => at.getTime() < grant.expiresAt.getTime();

/** Consumption order: the one expiring first first; ties by grant id (bytewise), so it is total. */
export function byConsumptionOrder(a: GrantFunds, b: GrantFunds): number {
  const byExpiry = a.expiresAt.getTime() - b.expiresAt.getTime();
  if (byExpiry !== 0) return byExpiry;
  return a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0;
}

/**
 * Draws for a sequence of charges of one user made at `at`, in their order: each takes from the
 * usable grants in consumption order what they still hold, up to its amount; the rest of a charge
 * is the user's purchased credit's. `grants` is not changed; the remainders after are returned.
 */
export function drawCharges(
  grants: readonly GrantFunds[],
  charges: ReadonlyArray<{ ref: string; amountAtto: bigint }>,
  at: Date,
): { draws: Array<{ ref: string; draws: GrantDraw[] }>; remaining: Map<string, bigint> } {
  const usable = grants.filter((g) => grantUsableAt(g, at) && g.remainingAtto > 0n).sort(byConsumptionOrder);
  const remaining = new Map(grants.map((g) => [g.grantId, g.remainingAtto]));
  const draws: Array<{ ref: string; draws: GrantDraw[] }> = [];
  for (const charge of charges) {
    let owed = charge.amountAtto;
    const taken: GrantDraw[] = [];
    for (const grant of usable) {
      if (owed <= 0n) break;
      const left = remaining.get(grant.grantId)!;
      if (left <= 0n) continue;
      const amountAtto = left < owed ? left : owed;
      remaining.set(grant.grantId, left - amountAtto);
      owed -= amountAtto;
      taken.push({ grantId: grant.grantId, amountAtto });
    }
    if (taken.length > 0) draws.push({ ref: charge.ref, draws: taken });
  }
  return { draws, remaining };
}

/**
 * Where a refund of an event goes back: to the grants the event drew from, before any purchased
 * credit (so promotional credit never turns into purchased credit), the grant expiring last first
 * (the longest-lasting credit back). Refunds of one event are taken in order, each continuing
 * where the earlier ones (`refundedBeforeAtto` in all) stopped, so what each grant got back never
 * needs reading. The rest of a refund (past the grants' part) is the user's purchased credit's.
 */
export function refundToGrants(input: {
  drawn: ReadonlyArray<GrantDraw & { expiresAt: Date }>;
  refundedBeforeAtto: bigint;
  refundAtto: bigint;
}): GrantDraw[] {
  const order = [...input.drawn].sort((a, b) => -byConsumptionOrder({ ...a, remainingAtto: 0n }, { ...b, remainingAtto: 0n }));
  let skip = input.refundedBeforeAtto;
  let left = input.refundAtto;
  const parts: GrantDraw[] = [];
  for (const draw of order) {
    if (left <= 0n) break;
    let open = draw.amountAtto;
    const skipped = skip < open ? skip : open;
    open -= skipped;
    skip -= skipped;
    if (open <= 0n) continue;
    const amountAtto = open < left ? open : left;
    parts.push({ grantId: draw.grantId, amountAtto });
    left -= amountAtto;
  }
  return parts;
}

/** The sum of the grants' remainders usable at `at` (balance_usd and holds count these). */
export function usableGrantsAtto(grants: readonly GrantFunds[], at: Date): bigint {
  let total = 0n;
  for (const g of grants) if (grantUsableAt(g, at) && g.remainingAtto > 0n) total += g.remainingAtto;
  return total;
}
