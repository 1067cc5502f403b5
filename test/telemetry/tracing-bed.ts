// What each tracing test starts from: a fresh OTLP receiver before it, and after it, the
// tracing it made shut down and the receiver closed.
import { afterEach, beforeEach } from 'vitest';
import { createMemoryLogger, type Logger } from '../../src/telemetry/logger.ts';
import { createTracing, type Tracing } from '../../src/telemetry/tracing.ts';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

/** Registers the hooks; returns how a test makes its tracing from an environment (and a
 * logger of its own, when it reads the logs). */
export function useTracingBed(ready: (receiver: OtlpReceiver) => void, opts: { serviceVersion?: string } = {}): (env: Record<string, string>, logger?: Logger) => Tracing {
  let receiver: OtlpReceiver | undefined;
  let tracing: Tracing | undefined;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    ready(receiver);
  });
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
    // Closing twice is fine: a test may have closed it to see an export fail.
    await receiver?.close();
  });
  return (env, logger = createMemoryLogger().logger) => {
    tracing = createTracing({ env, serviceName: 'gatehouse', ...opts, logger });
    return tracing;
  };
}
