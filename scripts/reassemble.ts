// Reassembles an SSE chat-completion body read from stdin and prints the result as JSON:
// the fixtures' keys (content, finish_reason, tool_calls, usage) plus error and truncated, and
// service_tier when the stream names one. usage is in api.md names: prompt, completion and total as
// sent, cached/reasoning when sent (0 included), every other kind only when non-zero.
// Exit 0 whatever the stream says (a provider error is a result); exit 1 only on I/O failure.
// Usage: npx tsx scripts/reassemble.ts < test/fixtures/sse/05-interleaved-parallel-2.sse
import { StreamReassembler, toSchemaResult } from '../src/modules/streams/sse-reassembler.js';

async function main(): Promise<void> {
  const reassembler = new StreamReassembler();
  // Chunks are fed as they arrive; the reassembler buffers only the event being read.
  for await (const chunk of process.stdin) {
    reassembler.push(chunk as Buffer);
  }
  const result = reassembler.end();
  const report = {
    ...toSchemaResult(result),
    error: result.error,
    truncated: result.truncated,
    ...(result.service_tier === null ? {} : { service_tier: result.service_tier }),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`reassemble: cannot read stdin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
