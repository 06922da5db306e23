import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { assert } from '../../common/errors/index.js';
import type { Principal } from './auth.types.js';
import type { StreamedSignature } from './signed-request-verifier.js';

/** rawBody: the JSON body's bytes, kept by the body parser for signature checks. */
export type AuthedRequest = FastifyRequest & { principal?: Principal; rawBody?: Buffer; streamedSignature?: StreamedSignature };

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthedRequest>().principal;
  assert(principal, 'route reached without a principal');
  return principal;
});
