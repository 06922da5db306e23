// API body of a created key: the secret is shown this once and never stored.
import type { CreatedApiKey } from './auth.service.js';
import type { ListedApiKey } from './api-keys.repository.js';

export function createdKeyBody(created: CreatedApiKey) {
  return {
    id: created.id,
    key: created.key,
    role: created.role,
    contributor_id: created.contributorId,
    name: created.name,
    created_at: created.createdAt.toISOString(),
    signed: created.signingSecret !== null,
    // The signing secret of a `signed: true` gateway key, shown this once.
    ...(created.signingSecret !== null ? { signing_secret: created.signingSecret } : {}),
  };
}

/** A listed key: what it is and when it was used, never the key or its signing secret. */
export function listedKeyBody(key: ListedApiKey) {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    contributor_id: key.contributorId,
    key_prefix: key.keyPrefix,
    signed: key.signed,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
