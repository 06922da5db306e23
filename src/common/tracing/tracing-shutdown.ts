import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { shutdownTracing } from './tracing.js';

/** Flushes the buffered spans when the API or worker stops (after every module's own shutdown). */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return shutdownTracing();
  }
}
