export const ROLES = ['admin', 'gateway', 'contributor'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: resolved from the bearer key by the auth guard. */
export interface Principal {
  keyId: string;
  role: Role;
  contributorId: string | null;
  /** A signed gateway key's HMAC key: every request with it must be signed (api.md). */
  signingKey?: Buffer;
}
