// API body of a created key: the secret is shown this once and never stored.
import type { CreatedApiKey } from './auth.service.js';

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
