// The fast subset of `npm run test:security`, in every `npm test`: the full access-control matrix
// (every served route x every kind of caller, IDOR, key secrecy in responses, audit log and
// database; not the log check, which starts a second process) and a few hundred generated bad
// inputs plus every regression case. Same helpers as test/security/.
import { describeAccessControl } from './support/access-control-suite.js';
import { describeBadInputFuzz } from './support/fuzz-suite.js';

describeAccessControl({ label: 'smoke_access', checkLogs: false });
describeBadInputFuzz({ label: 'smoke_fuzz', seed: 4242, cases: 300, abortedUploads: false });
