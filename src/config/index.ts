export * from './config.schema.js';
export * from './config.module.js';
