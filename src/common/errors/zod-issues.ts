import type { ZodError } from 'zod';
import type { FieldIssue } from './domain-error.js';

const ISSUES_MAX = 50;

/** zod issues as api.md details: which field (dotted path) and why. */
export function zodIssuesToFields(error: ZodError, prefix: string[] = []): FieldIssue[] {
  const fields: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) fields.push({ field: [...path, key].join('.'), message: 'unknown field' });
    } else {
      fields.push({ field: path.join('.') || '(body)', message: issue.message });
    }
  }
  return fields.slice(0, ISSUES_MAX);
}
