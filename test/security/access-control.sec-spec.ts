// Full access-control check: every served route x {no key, malformed header, unknown key, revoked
// key, gateway, contributor (own id), contributor (other id), admin}, IDOR, and key secrecy
// (responses, audit log, database, and the real process's logs). `npm run test:security`.
import { describeAccessControl } from './support/access-control-suite.js';

describeAccessControl({ label: 'sec_access', checkLogs: true });
