import { SetMetadata } from '@nestjs/common';
import type { Role } from './auth.types.js';

export const ROLES_KEY = 'ledger:roles';
export const PUBLIC_KEY = 'ledger:public';

/** Every route declares who may call it; the guard refuses routes that declare nothing. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);
export const Public = () => SetMetadata(PUBLIC_KEY, true);
