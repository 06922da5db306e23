// Start-up check of the worker (as Immich's job repository does): every job of the catalogue that
// a worker must handle has exactly one handler, on a processor of the job's own queue, and no
// handler names a job nobody may handle. A job without a handler would wait in Redis forever.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { declaredHandlers } from './on-job.js';
import { JOBS, type JobName } from './jobs.js';

/** Where @nestjs/bullmq's @Processor stores its queue name (the package does not export the key). */
const PROCESSOR_METADATA = 'bullmq:processor_metadata';

export interface FoundHandler {
  job: JobName;
  label: string;
  /** The queue the handler's @Processor consumes (undefined: not a processor). */
  queue: string | undefined;
}

/** Pure: every problem with the handlers found, empty when the worker may start. */
export function jobHandlerProblems(found: readonly FoundHandler[], jobs: Record<string, { queue: string; handled: boolean }> = JOBS): string[] {
  const problems: string[] = [];
  for (const [job, spec] of Object.entries(jobs)) {
    const handlers = found.filter((h) => h.job === job);
    if (spec.handled && handlers.length === 0) problems.push(`job ${job} (queue ${spec.queue}) has no handler: add @OnJob('${job}') to a processor of that queue`);
    if (spec.handled && handlers.length > 1) problems.push(`job ${job} has ${handlers.length} handlers: ${handlers.map((h) => h.label).join(', ')}`);
    if (!spec.handled && handlers.length > 0) problems.push(`job ${job} is kept for an operator, yet ${handlers.map((h) => h.label).join(', ')} handles it`);
    for (const h of handlers) {
      if (h.queue !== spec.queue) problems.push(`${h.label} handles ${job} of queue ${spec.queue} but consumes ${h.queue ?? 'no queue'}`);
    }
  }
  return problems;
}

/** The handlers a set of processor classes declares, with the queue each consumes. */
export function handlersOf(classes: readonly Function[]): FoundHandler[] {
  return classes.flatMap((ctor) => {
    const queue = (Reflect.getMetadata(PROCESSOR_METADATA, ctor) as { name?: string } | undefined)?.name;
    return declaredHandlers(ctor).map((h) => ({ job: h.job, label: h.label, queue }));
  });
}

/** Worker only: fails the boot (with every problem named) before any job is taken. */
@Injectable()
export class JobHandlersCheck implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const classes = [...new Set(this.discovery.getProviders().flatMap((w) => (w.metatype && w.instance ? [w.metatype as Function] : [])))];
    const problems = jobHandlerProblems(handlersOf(classes));
    if (problems.length > 0) throw new Error(`worker start-up: job handlers are wrong:\n- ${problems.join('\n- ')}`);
  }
}
