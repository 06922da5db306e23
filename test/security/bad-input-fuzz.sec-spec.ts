// 1,000+ generated malformed requests against every write route (fixed seed): never a 5xx, always
// the api.md error shape, no state change on refusal, idempotent acceptance, a clean ledger.
// `npm run test:security`; a smaller subset runs in `npm test` (test/security/security-smoke.e2e-spec.ts).
import { describeBadInputFuzz } from './support/fuzz-suite.js';

describeBadInputFuzz({ label: 'sec_fuzz', seed: 20261129, cases: 1200, abortedUploads: true });
