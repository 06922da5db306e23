import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { ROLES, type Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';

const whoamiResponseSchema = z.object({
  key_id: z.string(),
  role: z.enum(ROLES),
  contributor_id: z.string().nullable().describe('The contributor a contributor key is bound to; null for other roles'),
});
class WhoamiResponseDto extends createZodDto(whoamiResponseSchema) {}

/** Who the presented key is: the web console signs in with a key and shows that role's screens. */
@ApiTags('api keys')
@ApiBearerAuth()
@Controller('v1/me')
@Roles('admin', 'gateway', 'contributor')
export class WhoamiController {
  @Get()
  @ApiOkResponse({ type: WhoamiResponseDto })
  whoami(@CurrentPrincipal() principal: Principal) {
    return { key_id: principal.keyId, role: principal.role, contributor_id: principal.contributorId };
  }
}
