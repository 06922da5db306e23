import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { assert } from '../../common/errors/index.js';
import type { Principal } from './auth.types.js';

export type AuthedRequest = FastifyRequest & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthedRequest>().principal;
  assert(principal, 'route reached without a principal');
  return principal;
});
