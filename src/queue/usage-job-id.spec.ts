import fc from 'fast-check';
import { usageJobId } from './usage-job-id.js';

/** A valid event_id: any Unicode text without control characters, 1..256 characters (idSchema). */
const eventIdArb = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 256 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 256 }).filter((text) => !/\p{Cc}/u.test(text)),
  fc.constantFrom('alice+x@example.com', 'Jane Doe', ' 12', '12 ', '１２', 'acme/team', 'josé@x:1'),
  fc.integer().map(String),
  fc.constantFrom('1744536634', '-5', '0', 'gw:1', 'a:b:c', '~', '~x', '%3A', '~%3A', ':'),
);

describe('usageJobId', () => {
  it.each([
    ['gw1-req-123', 'gw1-req-123'],
    ['1744536634', '~1744536634'],
    ['-5', '~-5'],
    ['007', '007'],
    ['gw:1', '~gw%3A1'],
    ['a:b:c', '~a%3Ab%3Ac'],
    ['~x%y', '~~x%25y'],
    ['x%3Ay', 'x%3Ay'],
  ])('maps %j to %j', (eventId, jobId) => {
    expect(usageJobId(eventId)).toBe(jobId);
  });

  it('never gives an id BullMQ refuses at add: read as an integer, or holding a ":" (real Redis: test/usage/usage-queue.int-spec.ts)', () => {
    fc.assert(
      fc.property(eventIdArb, (eventId) => {
        const jobId = usageJobId(eventId);
        return `${parseInt(jobId, 10)}` !== jobId && !jobId.includes(':');
      }),
      { numRuns: 5000 },
    );
  });

  it('is one-to-one: two event ids never share a job id', () => {
    fc.assert(
      fc.property(eventIdArb, eventIdArb, (a, b) => a === b || usageJobId(a) !== usageJobId(b)),
      { numRuns: 5000 },
    );
    // The pairs an unescaped or a one-sided escape would merge.
    const tricky = ['~gw%3A1', 'gw:1', '~gw:1', '~~gw%3A1', '%', '~%25', '~%', '1', '~1'];
    expect(new Set(tricky.map(usageJobId)).size).toBe(tricky.length);
  });
});
