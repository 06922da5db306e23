import { DomainError } from '../../common/errors/index.js';
import type { Principal } from '../../common/auth/auth.types.js';

/** A contributor key reads only its own contributor; 403 without hinting whether the other exists. */
export function assertCanReadContributor(principal: Principal, contributorId: string): void {
  if (principal.role === 'admin') return;
  if (principal.role === 'contributor' && principal.contributorId === contributorId) return;
  throw new DomainError('forbidden', 'this key may not read that contributor');
}
