import { metrics, trace } from '@opentelemetry/api';

export interface Telemetry {
  /** Whether spans and metrics are exported at all. */
  enabled: boolean;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry for one service, configured by the standard `OTEL_*` variables (OTLP/HTTP). With
 * no exporter endpoint set nothing is loaded, and the API's no-op tracer and meter cost next to nothing.
 */
export async function startTelemetry(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Telemetry> {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => {} };
  // OTLP over HTTP, protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL asks for JSON (the spec's default).
  const json = (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf') === 'http/json';
  const [{ NodeSDK }, { OTLPTraceExporter }, { OTLPMetricExporter }, { PeriodicExportingMetricReader }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      json
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
      json
        ? import('@opentelemetry/exporter-metrics-otlp-http')
        : import('@opentelemetry/exporter-metrics-otlp-proto'),
      import('@opentelemetry/sdk-metrics'),
    ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || `munim-${service}`,
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000,
      }),
    ],
    // ESM services are instrumented by hand (bus, gateway, agent); no monkey-patching.
    instrumentations: [],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}

/** The tracer of munim's own spans. */
export const tracer = () => trace.getTracer('munim');

/** The meter of munim's own metrics. */
export const meter = () => metrics.getMeter('munim');

type Counter = ReturnType<ReturnType<typeof meter>['createCounter']>;
type Histogram = ReturnType<ReturnType<typeof meter>['createHistogram']>;

/**
 * A counter made on first use: instruments made before the SDK started would stay no-ops
 * (metrics have no proxy provider), and modules load before `runMain` starts telemetry.
 */
export function lazyCounter(name: string, description: string, unit?: string): () => Counter {
  let made: Counter | undefined;
  return () => (made ??= meter().createCounter(name, { description, ...(unit ? { unit } : {}) }));
}

/** A histogram made on first use (see {@link lazyCounter}). */
export function lazyHistogram(name: string, description: string, unit?: string): () => Histogram {
  let made: Histogram | undefined;
  return () => (made ??= meter().createHistogram(name, { description, ...(unit ? { unit } : {}) }));
}
