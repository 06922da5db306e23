// UTC days for the scripts' seeding and queries: the API keeps earnings and rollups per UTC day.
export const DAY_MS = 86_400_000;

/** 00:00:00Z of the UTC day after the one `nowMs` falls in: the exclusive end of "up to today". */
export function nextUtcMidnight(nowMs = Date.now()): Date {
  return new Date((Math.floor(nowMs / DAY_MS) + 1) * DAY_MS);
}
