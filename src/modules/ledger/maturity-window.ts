// Pure: which UTC days of earnings have matured (PAYOUT_MATURITY_DAYS). Events of day D become
// payable once the whole day is N days old: at 00:00 UTC of day D + N + 1, never earlier, so
// every event waits at least N days after its occurred_at.
const DAY_MS = 86_400_000;

/** The last matured day ("YYYY-MM-DD"): every earning of this day or before is payable at `now`. */
export function maturedThrough(now: Date, maturityDays: number): string {
  const today = Math.floor(now.getTime() / DAY_MS);
  return new Date((today - maturityDays - 1) * DAY_MS).toISOString().slice(0, 10);
}

/** Whether an event that occurred at `occurredAt` is still maturing at `now`. */
export function isMaturing(occurredAt: Date, now: Date, maturityDays: number): boolean {
  if (maturityDays <= 0) return false;
  return occurredAt.toISOString().slice(0, 10) > maturedThrough(now, maturityDays);
}
