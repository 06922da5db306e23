// Integration tests talk to real services; keep their logs quiet unless asked.
process.env.LOG_LEVEL ??= 'warn';
process.env.NODE_ENV ??= 'test';
// Most tests change a payout address and settle at once; the cool-down (product default 24 h,
// api.md) is tested where it is the subject, which sets PAYOUT_ADDRESS_COOLDOWN_HOURS itself.
process.env.PAYOUT_ADDRESS_COOLDOWN_HOURS ??= '0';
