// Reassembles an SSE body read from stdin, in any wire format of the stream route (openai-chat,
// openai-responses, anthropic-messages, gemini; detected from the body without --format), and
// prints the result as JSON: the fixtures' keys (content, finish_reason, tool_calls, usage) plus
// error, truncated and format, and service_tier when the stream names one. usage is in api.md
// names: prompt, completion and total as sent, cached/reasoning when sent (0 included), every
// other kind only when non-zero.
// Exit 0 whatever the stream says (a provider error, a body of no known format: format null and
// an error); 2 for an unknown --format; 1 only on I/O failure.
// Usage: npm run reassemble -- [--format anthropic-messages] < test/fixtures/formats/anthropic-text.sse
import { parseArgs } from 'node:util';
import { StreamReassembler, toSchemaResult } from '../src/modules/streams/sse-reassembler.js';
import { STREAM_FORMATS, isStreamFormat } from '../src/modules/streams/stream-format.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { format: { type: 'string' } } });
  if (values.format !== undefined && !isStreamFormat(values.format)) {
    process.stderr.write(`reassemble: unknown --format ${values.format} (one of ${STREAM_FORMATS.join(', ')})\n`);
    process.exitCode = 2;
    return;
  }
  const reassembler = new StreamReassembler(undefined, values.format);
  // Chunks are fed as they arrive; the reassembler buffers only the event being read.
  for await (const chunk of process.stdin) {
    reassembler.push(chunk as Buffer);
  }
  const result = reassembler.end();
  const report = {
    ...toSchemaResult(result),
    error: result.format === null && result.error === null ? { code: 'unsupported_stream_format', message: 'no event of a known format', source: 'format' } : result.error,
    truncated: result.truncated,
    format: result.format,
    ...(result.service_tier === null ? {} : { service_tier: result.service_tier }),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`reassemble: cannot read stdin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
