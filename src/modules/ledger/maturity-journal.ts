// Journal entry kind of payout maturity (PAYOUT_MATURITY_DAYS > 0), for every reader of the
// journal (statements, the console): usage entries then credit contributor:<id>:pending instead
// of :payable, and the maturity job moves what has matured:
//
//   kind 'earnings_matured', ref '<contributor_id>:<YYYY-MM-DD>' (the last matured UTC day at
//   the run; one entry per contributor and day, so a second run the same day is a no-op):
//     contributor:<id>:pending   -amount
//     contributor:<id>:payable   +amount
// The kind, its ref format and the builder are in the journal catalogue (journal-kinds.ts).
import type { JournalKind } from './journal-kinds.js';

export { earningsMaturedDraft, earningsMaturedRef } from './journal-kinds.js';
export const EARNINGS_MATURED_JOURNAL_KIND = 'earnings_matured' satisfies JournalKind;
