import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { AuditService } from '../audit/audit.service.js';
import { ApiKeysRepository, type ListedApiKey } from './api-keys.repository.js';
import { generateApiKey, hashApiKey, sameHash } from './api-key.js';
import { generateSigningSecret, signingKeyBytes } from '../../common/signing/standard-webhooks.js';
import type { Principal, Role } from '../../common/auth/auth.types.js';

const BOOTSTRAP_ADMIN_KEY_ID = 'bootstrap-admin';
// Authenticated keys are cached briefly to keep one query off every request; revoking through
// this process evicts at once, and other replicas notice within the TTL.
const KEY_CACHE_TTL_MS = 2_000;
const KEY_CACHE_ENTRIES_MAX = 10_000;

export interface CreatedApiKey {
  id: string;
  key: string;
  role: Role;
  contributorId: string | null;
  name: string | null;
  createdAt: Date;
  /** The whsec_ secret of a signed gateway key (shown once), else null. */
  signingSecret: string | null;
}

@Injectable()
export class AuthService {
  private readonly cache = new Map<string, { principal: Principal | null; expiresAtMs: number }>();
  /** Lookups in flight, one per key hash: requests that miss the cache together share one query. */
  private readonly lookups = new Map<string, Promise<Principal | null>>();
  /** Bumped by every eviction: a lookup that started before it must not cache what it read. */
  private cacheGeneration = 0;
  /** Hashed once: every request compares hashes, in constant time. */
  private readonly adminKeyHash: string | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly keys: ApiKeysRepository,
    private readonly audit: AuditService,
  ) {
    this.adminKeyHash = config.ADMIN_API_KEY ? hashApiKey(config.ADMIN_API_KEY) : null;
  }

  /** Resolves a bearer key to a principal, or null when unknown or revoked. */
  async authenticate(key: string): Promise<Principal | null> {
    const keyHash = hashApiKey(key);
    if (this.adminKeyHash !== null && sameHash(keyHash, this.adminKeyHash)) {
      return { keyId: BOOTSTRAP_ADMIN_KEY_ID, role: 'admin', contributorId: null };
    }
    const cached = this.cache.get(keyHash);
    if (cached && cached.expiresAtMs > Date.now()) return cached.principal;
    // When an entry expires under load, every request in the next milliseconds misses it: they
    // share one query instead of each sending its own.
    let lookup = this.lookups.get(keyHash);
    if (!lookup) {
      const started = this.lookUp(keyHash);
      const forget = () => {
        if (this.lookups.get(keyHash) === started) this.lookups.delete(keyHash);
      };
      started.then(forget, forget);
      this.lookups.set(keyHash, started);
      lookup = started;
    }
    return lookup;
  }

  private async lookUp(keyHash: string): Promise<Principal | null> {
    const generation = this.cacheGeneration;
    const record = await this.keys.findActiveByHash(keyHash);
    // On a cache miss only (every few seconds per key and process), off the request's path: the
    // admin listing's last_used_at, to the minute. A failed write must not fail the request.
    if (record) void this.keys.touchLastUsed(record.id).catch(() => undefined);
    const principal: Principal | null = record ? { keyId: record.id, role: record.role, contributorId: record.contributorId } : null;
    // Decoded once per lookup; the guard checks each request's signature with it.
    if (principal && record?.signingSecret) principal.signingKey = signingKeyBytes(record.signingSecret);
    if (generation === this.cacheGeneration) {
      if (this.cache.size >= KEY_CACHE_ENTRIES_MAX) this.cache.clear();
      this.cache.set(keyHash, { principal, expiresAtMs: Date.now() + KEY_CACHE_TTL_MS });
    }
    return principal;
  }

  /** After a key changes: nothing cached or in flight before it is used again. */
  private evictAll(): void {
    this.cache.clear();
    this.lookups.clear();
    this.cacheGeneration += 1;
  }

  async createKey(actor: Principal, input: { role: Role; contributorId?: string; name?: string; signed?: boolean }): Promise<CreatedApiKey> {
    if (input.signed && input.role !== 'gateway') {
      throw new DomainError('validation_failed', 'only gateway keys can be signed', [{ field: 'signed', message: 'only allowed for role gateway' }]);
    }
    const signingSecret = input.signed ? generateSigningSecret() : null;
    if ((input.role === 'contributor') !== (input.contributorId !== undefined)) {
      throw new DomainError('validation_failed', 'contributor_id is required for a contributor key and only for one', [
        { field: 'contributor_id', message: input.role === 'contributor' ? 'required for role contributor' : 'only allowed for role contributor' },
      ]);
    }
    const generated = generateApiKey(input.role);
    const id = randomUUID();
    const record = await this.db.prismaTransaction(async (tx) => {
      const created = await this.keys.create(tx, {
        id,
        keyHash: generated.keyHash,
        keyPrefix: generated.keyPrefix,
        role: input.role,
        contributorId: input.contributorId ?? null,
        name: input.name ?? null,
        signingSecret,
      });
      // The audit log never holds the secret, only its prefix.
      await this.audit.recordWithPrisma(tx, actor, {
        action: 'api_key.create',
        target: `api_key:${id}`,
        after: { role: created.role, contributor_id: created.contributorId, name: created.name, key_prefix: created.keyPrefix, signed: signingSecret !== null },
      });
      return created;
    });
    this.evictAll();
    return { id, key: generated.key, role: record.role, contributorId: record.contributorId, name: record.name, createdAt: record.createdAt, signingSecret };
  }

  listKeys(filter: { role?: Role; contributorId?: string }, limit: number, before: { us: string; id: string } | null): Promise<ListedApiKey[]> {
    return this.keys.list(filter, limit, before);
  }

  async revokeKey(actor: Principal, id: string): Promise<void> {
    await this.db.prismaTransaction(async (tx) => {
      const existing = await this.keys.findById(tx, id);
      if (!existing) throw notFound('api key');
      if (existing.revokedAt) return;
      const now = new Date();
      await this.keys.revoke(tx, id, now);
      await this.audit.recordWithPrisma(tx, actor, {
        action: 'api_key.revoke',
        target: `api_key:${id}`,
        before: { revoked_at: null },
        after: { revoked_at: now },
      });
    });
    this.evictAll();
  }
}
