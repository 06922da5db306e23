// A path parameter that is an id (api.md "Ids"): percent-decoded by the router, then held to the
// rule of every id, so `GET /v1/holds/<257 characters>` or a control character in a contributor
// id is a 400 naming the parameter, not a query for what cannot exist (or a 5xx).
import type { PipeTransform } from '@nestjs/common';
import { validationFailed } from '../errors/index.js';
import { idProblem } from './fields.js';

export function idParam(field: string): PipeTransform<unknown, string> {
  return {
    transform(value: unknown): string {
      const problem = typeof value === 'string' ? idProblem(value) : 'required';
      if (problem !== null) throw validationFailed([{ field, message: problem }]);
      return value as string;
    },
  };
}
