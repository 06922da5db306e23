// What a group of charges adds to the budgets' spend rollup (user_spend_daily): summed per user,
// UTC day of occurred_at, key ('' = none) and model, in one fixed order. Pure.

export interface SpendCharge {
  userId: string;
  occurredAt: Date;
  keyId: string | null;
  model: string;
  chargeAtto: bigint;
}

export interface SpendDelta {
  userId: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** '' for a charge without key_id (key ids are never empty). */
  keyId: string;
  model: string;
  chargeAtto: bigint;
}

/**
 * One pass and one sort of the joined keys: ids and models never hold U+0000 (Postgres text
 * cannot), so ordering `user\0day\0key\0model` is ordering the four fields one after another.
 */
export function spendDeltas(charges: Iterable<SpendCharge>): SpendDelta[] {
  const byKey = new Map<string, SpendDelta>();
  for (const c of charges) {
    const day = c.occurredAt.toISOString().slice(0, 10);
    const keyId = c.keyId ?? '';
    const key = `${c.userId}\u0000${day}\u0000${keyId}\u0000${c.model}`;
    const known = byKey.get(key);
    if (known) known.chargeAtto += c.chargeAtto;
    else byKey.set(key, { userId: c.userId, day, keyId, model: c.model, chargeAtto: c.chargeAtto });
  }
  const keys = [...byKey.keys()].sort();
  return keys.map((key) => byKey.get(key)!);
}
