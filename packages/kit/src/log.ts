import type { ServiceName } from '@munim/contracts';
import { trace } from '@opentelemetry/api';
import { type Logger, pino } from 'pino';

export type { Logger };

const REDACT = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'token',
  '*.token',
  'password',
  '*.password',
  'OPENAI_API_KEY',
  'MCP_AUTH_TOKEN',
  'GATEWAY_API_KEYS',
];

/** The service's root logger: JSON lines, secrets redacted, `service` on every line. */
export function createLogger(service: ServiceName | string, level = 'info'): Logger {
  return pino({
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    // Every line written inside a span names it, so logs and traces join up.
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context && trace.isSpanContextValid(context)
        ? { trace_id: context.traceId, span_id: context.spanId }
        : {};
    },
  }).child({ service });
}
