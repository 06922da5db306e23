import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_CHARS, API_KEY_LENGTH_MAX } from '../../common/validation/api-key-text.js';
import type { Role } from '../../common/auth/auth.types.js';

const KEY_BYTES = 32;
const PREFIX_BY_ROLE: Record<Role, string> = { admin: 'lk_adm', gateway: 'lk_gw', contributor: 'lk_ctb' };

/** Keys are 256-bit random secrets, so a fast hash is enough (no password stretching needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(role: Role): { key: string; keyHash: string; keyPrefix: string } {
  const key = `${PREFIX_BY_ROLE[role]}_${randomBytes(KEY_BYTES).toString('base64url')}`;
  return { key, keyHash: hashApiKey(key), keyPrefix: key.slice(0, 12) };
}

/** Constant-time comparison of two hex sha256 digests. */
export function sameHash(leftHex: string, rightHex: string): boolean {
  return timingSafeEqual(Buffer.from(leftHex, 'hex'), Buffer.from(rightHex, 'hex'));
}

const BEARER = new RegExp(`^Bearer\\s+(${API_KEY_CHARS}{8,${API_KEY_LENGTH_MAX}})\\s*$`);

export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = BEARER.exec(header);
  return match?.[1] ?? null;
}
