import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { assert } from '../errors/index.js';
import type { Principal } from './auth.types.js';

/**
 * A request the auth guard has resolved. The signature fields (raw body, streamed signature) are
 * added by auth's own AuthedRequest: keeping them out of here is what lets every controller read
 * its principal without importing the auth module.
 */
export type PrincipalRequest = FastifyRequest & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<PrincipalRequest>().principal;
  assert(principal, 'route reached without a principal');
  return principal;
});
