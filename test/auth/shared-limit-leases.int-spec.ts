// Leased shared limits (token-leases.ts): two RateLimiters (two "replicas", each its own Redis
// connection, one queue prefix) on a real Redis admit exactly the bucket's tokens in all, however
// the requests are spread and interleaved, while a busy key costs far fewer Redis calls than
// requests.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Reflector } from '@nestjs/core';
import { parseEnv } from '../../src/config/config.schema.js';
import { RateLimitedError } from '../../src/common/errors/index.js';
import { MetricsService } from '../../src/modules/health/metrics.service.js';
import { AuthFailureLimiter } from '../../src/modules/auth/auth-failure-limiter.js';
import { RateLimiter } from '../../src/modules/auth/rate-limiter.js';
import { SharedLimitsStore } from '../../src/modules/auth/shared-limits.store.js';
import { LEASE_TTL_MS } from '../../src/modules/auth/token-leases.js';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const BURST = 1000; // the smallest burst allowed; the refill (1 per minute) is negligible here
const BUCKET = { name: 'ingest', cost: 1 };

interface Replica {
  limiter: RateLimiter;
  store: SharedLimitsStore;
  calls: () => number;
}

function startReplica(prefix: string): Replica {
  const config = parseEnv({ ...process.env, QUEUE_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: String(BURST), AUTH_FAILURES_PER_MINUTE: '4' });
  const store = new SharedLimitsStore(config);
  let calls = 0;
  const admit = store.admit.bind(store);
  // Counts the Redis round trips (the real call still runs).
  store.admit = (...args) => {
    calls += 1;
    return admit(...args);
  };
  const limiter = new RateLimiter(config, new Reflector(), store, new AuthFailureLimiter(config), new MetricsService());
  return { limiter, store, calls: () => calls };
}

async function admitted(replica: Replica, keyId: string, clientId = '10.0.0.1'): Promise<boolean> {
  try {
    await replica.limiter.charge(clientId, keyId, BUCKET);
    return true;
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
}

/** Sends to both replicas until both refuse twice, after the leases' TTL: what is left in the window. */
async function drain(replicas: Replica[], keyId: string): Promise<number> {
  await sleep(LEASE_TTL_MS + 50);
  let count = 0;
  let refusedInARow = 0;
  while (refusedInARow < 2 * replicas.length) {
    for (const replica of replicas) {
      if (await admitted(replica, keyId)) {
        count += 1;
        refusedInARow = 0;
      } else {
        refusedInARow += 1;
      }
    }
  }
  return count;
}

describe('shared limit leases across two limiters', () => {
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    a = startReplica(prefix);
    b = startReplica(prefix);
    await Promise.all([a.store.onApplicationBootstrap(), b.store.onApplicationBootstrap()]);
    expect(a.store.available && b.store.available).toBe(true);
  });
  afterAll(() => {
    a?.store.onModuleDestroy();
    b?.store.onModuleDestroy();
  });

  it('admits exactly the burst in all for any spread and concurrency, in fewer Redis calls than requests', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: BURST + 50, maxLength: BURST + 200 }),
        fc.integer({ min: 1, max: 48 }),
        async (toA, concurrency) => {
          run += 1;
          const keyId = `key-${run}-${randomBytes(3).toString('hex')}`;
          const callsBefore = a.calls() + b.calls();
          let count = 0;
          for (let start = 0; start < toA.length; start += concurrency) {
            const wave = toA.slice(start, start + concurrency).map((first) => admitted(first ? a : b, keyId));
            for (const ok of await Promise.all(wave)) if (ok) count += 1;
          }
          // Never more than the bucket, even before leases expire.
          expect(count).toBeLessThanOrEqual(BURST);
          const calls = a.calls() + b.calls() - callsBefore;
          // Whatever a lease held back is spent or handed back within the window.
          count += await drain([a, b], keyId);
          expect(count).toBe(BURST);
          expect(calls).toBeLessThan(toA.length);
        },
      ),
      { numRuns: 8 },
    );
  }, 60_000);

  it('charges a busy key once per lease, not once per request', async () => {
    const keyId = `busy-${randomBytes(3).toString('hex')}`;
    const before = a.calls();
    let count = 0;
    for (let i = 0; i < 600; i += 1) if (await admitted(a, keyId)) count += 1;
    expect(count).toBe(600);
    // Leases double up to LEASE_TOKENS_MAX (128): 1, 2, 4, ... 128, 128, ... about 11 calls.
    expect(a.calls() - before).toBeLessThan(20);
  });

  it('refuses a client blocked by failures on the other replica once the lease lapses', async () => {
    const keyId = `blocked-${randomBytes(3).toString('hex')}`;
    const client = '10.0.0.9';
    for (let i = 0; i < 20; i += 1) expect(await admitted(a, keyId, client)).toBe(true);
    for (let i = 0; i < 4; i += 1) await b.limiter.recordFailure(client);
    await expect(b.limiter.recordFailure(client)).rejects.toBeInstanceOf(RateLimitedError);
    // b refuses at once; a within LEASE_TTL_MS.
    expect(await admitted(b, keyId, client)).toBe(false);
    await sleep(LEASE_TTL_MS + 50);
    expect(await admitted(a, keyId, client)).toBe(false);
  });
});
