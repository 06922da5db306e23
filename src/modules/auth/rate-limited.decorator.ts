import { SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export const RATE_LIMIT_KEY = 'ledger:rate-limit';

/** Named limits; each has its own bucket per API key. Only ingestion so far. */
export type RateLimitName = 'ingest';

export interface RateLimitPolicy {
  name: RateLimitName;
  /** Tokens one request costs (e.g. the events in a batch); at least 1. */
  cost: (request: FastifyRequest) => number;
}

/**
 * Limits a route per API key (the principal's keyId) with a token bucket shared by every route of
 * the same name. The route must also declare @Roles(): the limit applies after authentication.
 */
export const RateLimited = (name: RateLimitName, cost: (request: FastifyRequest) => number = () => 1) =>
  SetMetadata(RATE_LIMIT_KEY, { name, cost } satisfies RateLimitPolicy);
