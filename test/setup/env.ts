// Integration tests talk to real services; keep their logs quiet unless asked.
process.env.LOG_LEVEL ??= 'warn';
process.env.NODE_ENV ??= 'test';
