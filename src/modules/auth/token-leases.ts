// Leases of shared rate-limit tokens, in one process. Pure: no Nest, no Redis, time injected.
// A process that serves a hot key takes a block of tokens from the shared bucket in one Redis
// call and spends it locally, instead of one call per request. Tokens are request-cost units
// (events), not money, so plain numbers are fine.
//
// Why the total stays exactly the bucket's across replicas: a leased token is taken from the
// shared bucket when it is granted, so every admission (leased or charged) is one token the
// shared bucket gave out once. A lease never outlives LEASE_TTL_MS; what is left of it then is
// handed back with the next call for that bucket (or refilled by the bucket's clock anyway).
// Near an empty bucket Redis grants no more than the cost (SharedLimitsStore: the reserve), so
// the last tokens are charged request by request, as without leases.

/** Most tokens one Redis call may lease for one (client, key, route) triple. */
export const LEASE_TOKENS_MAX = 128;
/**
 * How long a lease may be spent. It also bounds how late a failed-authentication block set by
 * another replica reaches requests this process admits from a lease.
 */
export const LEASE_TTL_MS = 250;
/** Leases tracked at once (client x key x route); past it all are dropped (the safe direction: fewer admissions). */
export const LEASES_TRACKED_MAX = 10_000;

interface Lease {
  tokens: number;
  expiresAtMs: number;
  /** Size of the last grant: a lease spent out within its TTL asks for twice as much next time. */
  lastGrant: number;
  /** Tokens of an expired lease not yet handed back. */
  unspent: number;
}

export class TokenLeases {
  private readonly byClient = new Map<string, Map<string, Lease>>();
  private tracked = 0;

  constructor(private readonly nowMs: () => number = Date.now) {}

  get size(): number {
    return this.tracked;
  }

  /** Spends `cost` tokens of a live lease; false when there is none or too little (ask Redis). */
  spend(clientId: string, bucketKey: string, cost: number): boolean {
    const lease = this.byClient.get(clientId)?.get(bucketKey);
    if (!lease) return false;
    this.expire(lease);
    if (lease.tokens < cost) return false;
    lease.tokens -= cost;
    return true;
  }

  /**
   * What to ask Redis for: `want` tokens (at least the cost; more once the key proved busy) and
   * `refund`, the unspent tokens of expired leases, which the caller hands back in the same call.
   */
  request(clientId: string, bucketKey: string, cost: number): { want: number; refund: number } {
    const lease = this.byClient.get(clientId)?.get(bucketKey);
    if (!lease) return { want: cost, refund: 0 };
    this.expire(lease);
    const refund = lease.unspent;
    lease.unspent = 0;
    // A lease spent out before its TTL means the key is busy here: double the next one. One that
    // expired unspent means it is not: back to the cost (an idle key charges request by request).
    if (refund > 0) lease.lastGrant = 1;
    const want = refund > 0 ? cost : Math.min(LEASE_TOKENS_MAX, lease.lastGrant * 2);
    return { want: Math.max(want, cost), refund };
  }

  /** Redis granted `granted` tokens of which `cost` pay for the request being admitted. */
  grant(clientId: string, bucketKey: string, granted: number, cost: number): void {
    // A cost above the bucket's capacity is charged as the capacity: nothing is left then.
    const left = Math.max(0, granted - cost);
    let leases = this.byClient.get(clientId);
    if (!leases) {
      if (this.tracked >= LEASES_TRACKED_MAX) this.clear();
      leases = new Map();
      this.byClient.set(clientId, leases);
    }
    const lease = leases.get(bucketKey);
    const expiresAtMs = this.nowMs() + LEASE_TTL_MS;
    if (lease) {
      // Concurrent renewals add up; the lease lives as long as its newest tokens.
      this.expire(lease);
      lease.tokens += left;
      lease.lastGrant = Math.max(granted, 1);
      lease.expiresAtMs = expiresAtMs;
      return;
    }
    leases.set(bucketKey, { tokens: left, expiresAtMs, lastGrant: Math.max(granted, 1), unspent: 0 });
    this.tracked += 1;
  }

  /** A failed authentication or a block seen: this client spends no lease until Redis says so again. */
  dropClient(clientId: string): void {
    const leases = this.byClient.get(clientId);
    if (!leases) return;
    this.tracked -= leases.size;
    this.byClient.delete(clientId);
  }

  private clear(): void {
    this.byClient.clear();
    this.tracked = 0;
  }

  private expire(lease: Lease): void {
    if (lease.tokens > 0 && this.nowMs() >= lease.expiresAtMs) {
      lease.unspent += lease.tokens;
      lease.tokens = 0;
    }
  }
}
