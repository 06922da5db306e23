import { Injectable } from '@nestjs/common';
import { signingKeyBytes } from '../../common/signing/standard-webhooks.js';
import { ApiKeysRepository } from './api-keys.repository.js';

const SIGNING_KEY_CACHE_TTL_MS = 2_000;
const SIGNING_KEY_CACHE_ENTRIES_MAX = 1_000;

/** A signed gateway key's HMAC key, by key id (queue jobs name their key; HTTP requests carry it). */
@Injectable()
export class SigningKeysService {
  private readonly cache = new Map<string, { key: Buffer | null; expiresAtMs: number }>();

  constructor(private readonly keys: ApiKeysRepository) {}

  /** The HMAC key of an active signed gateway key, or null (unknown, revoked, unsigned). */
  async find(keyId: string): Promise<Buffer | null> {
    const cached = this.cache.get(keyId);
    if (cached && cached.expiresAtMs > Date.now()) return cached.key;
    const record = await this.keys.findActiveById(keyId);
    const key = record && record.role === 'gateway' && record.signingSecret ? signingKeyBytes(record.signingSecret) : null;
    if (this.cache.size >= SIGNING_KEY_CACHE_ENTRIES_MAX) this.cache.clear();
    this.cache.set(keyId, { key, expiresAtMs: Date.now() + SIGNING_KEY_CACHE_TTL_MS });
    return key;
  }
}
