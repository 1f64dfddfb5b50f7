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
  const [{ NodeSDK }, { OTLPTraceExporter }, { OTLPMetricExporter }, { PeriodicExportingMetricReader }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
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
