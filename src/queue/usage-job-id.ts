// The BullMQ job id of a usage event, for every valid event_id (any Unicode text without control
// characters, 1..256: api.md "Ids").
//
// BullMQ refuses two kinds of custom job id at `add`: one it reads as an integer
// (`String(parseInt(id, 10)) === id`, e.g. "1744536634" or "-5": "Custom Id cannot be integers") and
// one with a ':' (it allows exactly two, for old repeatable jobs, and plans to refuse any). Such an
// event could never use the queue. So the job id is the event_id itself, unless the event_id is one
// of those or starts with the escape mark '~'; then it is '~' followed by the event_id with every
// '%' written "%25" and every ':' written "%3A". The map is one-to-one: escaped ids, and only they,
// start with '~', and the percent-escaping is reversible, so two events never share a job id.
//
//   "gw1-req-123"  -> "gw1-req-123"         (most ids: unchanged, job id = event_id)
//   "1744536634"   -> "~1744536634"
//   "gw:1"         -> "~gw%3A1"
//   "~x%y"         -> "~~x%25y"

export const USAGE_JOB_ID_ESCAPE = '~';

/** What BullMQ refuses as a custom job id (classes/job.js validateOptions, bullmq 5 and 6). */
function bullmqRefuses(id: string): boolean {
  return `${parseInt(id, 10)}` === id || id.includes(':');
}

/** The job id of the usage event with this event_id (see the file comment). */
export function usageJobId(eventId: string): string {
  if (!bullmqRefuses(eventId) && !eventId.startsWith(USAGE_JOB_ID_ESCAPE)) return eventId;
  return USAGE_JOB_ID_ESCAPE + eventId.replaceAll('%', '%25').replaceAll(':', '%3A');
}
