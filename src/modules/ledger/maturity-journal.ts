// Journal entry kind of payout maturity (PAYOUT_MATURITY_DAYS > 0), for every reader of the
// journal (statements, the console): usage entries then credit contributor:<id>:pending instead
// of :payable, and the maturity job moves what has matured:
//
//   kind 'earnings_matured', ref '<contributor_id>:<YYYY-MM-DD>' (the last matured UTC day at
//   the run; one entry per contributor and day, so a second run the same day is a no-op):
//     contributor:<id>:pending   -amount
//     contributor:<id>:payable   +amount
import { assert } from '../../common/errors/index.js';
import { contributorPayable, contributorPending } from './account-codes.js';
import type { JournalDraft } from './journal-draft.js';

export const EARNINGS_MATURED_JOURNAL_KIND = 'earnings_matured';

export const earningsMaturedRef = (contributorId: string, maturedThroughDay: string) => `${contributorId}:${maturedThroughDay}`;

export function earningsMaturedDraft(input: { contributorId: string; maturedThroughDay: string; amountAtto: bigint }): JournalDraft {
  assert(input.amountAtto > 0n, 'a maturity moves a positive amount');
  return {
    kind: EARNINGS_MATURED_JOURNAL_KIND,
    ref: earningsMaturedRef(input.contributorId, input.maturedThroughDay),
    memo: `earnings through ${input.maturedThroughDay} matured`,
    postings: [
      { accountCode: contributorPending(input.contributorId), amountAtto: -input.amountAtto },
      { accountCode: contributorPayable(input.contributorId), amountAtto: input.amountAtto },
    ],
  };
}
