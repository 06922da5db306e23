// Ledger account codes. Signs: postings are credit-positive, so a user's prepaid credit and a
// contributor's payable are positive balances; every journal transaction sums to zero.

export const PLATFORM_REVENUE = 'platform:revenue';
export const PLATFORM_ADJUSTMENTS = 'platform:adjustments';
export const EXTERNAL_FUNDING = 'external:funding';
/** What credit grants (promotions, trials) cost the platform: the other side of a grant's funding. */
export const PLATFORM_PROMOTIONS = 'platform:promotions';

export type AccountKind = 'user' | 'contributor_pending' | 'contributor_payable' | 'contributor_in_settlement' | 'contributor_paid' | 'user_grant' | 'platform' | 'external';

export const userAccount = (userId: string) => `user:${userId}`;
/** A credit grant's own account (owner: the grant id; user_grants names its user). */
export const grantAccount = (grantId: string) => `grant:${grantId}`;
export const contributorPayable = (contributorId: string) => `contributor:${contributorId}:payable`;
/** Earnings not matured yet (PAYOUT_MATURITY_DAYS > 0): moved to payable by the maturity job. */
export const contributorPending = (contributorId: string) => `contributor:${contributorId}:pending`;
export const contributorInSettlement = (contributorId: string) => `contributor:${contributorId}:in_settlement`;
export const contributorPaid = (contributorId: string) => `contributor:${contributorId}:paid`;

export interface AccountInfo {
  kind: AccountKind;
  ownerId: string | null;
  /** Untracked accounts keep no stored balance (platform/external: hot rows on every event). */
  tracked: boolean;
}

/** Codes seen recently (every event posts to its user and contributor): parsed once each. */
const described = new Map<string, Readonly<AccountInfo>>();
const DESCRIBED_MAX = 10_000;

export function describeAccount(code: string): Readonly<AccountInfo> {
  let info = described.get(code);
  if (info === undefined) {
    info = Object.freeze(parseAccountCode(code));
    if (described.size >= DESCRIBED_MAX) described.clear();
    described.set(code, info);
  }
  return info;
}

function parseAccountCode(code: string): AccountInfo {
  if (code.startsWith('user:')) return { kind: 'user', ownerId: code.slice('user:'.length), tracked: true };
  if (code.startsWith('grant:')) return { kind: 'user_grant', ownerId: code.slice('grant:'.length), tracked: true };
  const contributor = /^contributor:(.+):(pending|payable|in_settlement|paid)$/.exec(code);
  if (contributor) {
    const kind = `contributor_${contributor[2]}` as AccountKind;
    return { kind, ownerId: contributor[1]!, tracked: true };
  }
  if (code.startsWith('platform:')) return { kind: 'platform', ownerId: null, tracked: false };
  if (code.startsWith('external:')) return { kind: 'external', ownerId: null, tracked: false };
  throw new Error(`unknown ledger account code: ${code}`);
}
