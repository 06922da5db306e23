export * from './domain-error.js';
export * from './error-body.js';
export * from './zod-issues.js';
