// OpenTelemetry tracing, configured by the standard OTEL_* environment
// variables and off unless they ask for it: OTEL_TRACES_EXPORTER=otlp, or
// an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or ..._TRACES_ENDPOINT);
// OTEL_SDK_DISABLED=true wins. Spans go to the OTLP/HTTP exporter, in
// batches. When off, nothing here is loaded and every span zlake opens is
// the API's no-op, so tracing costs nothing.
//
// Spans: one server span per HTTP request (service/server.ts, parented by
// an incoming W3C traceparent), query.compile and query.run, lake.commit
// and registers.swap, and one per object store or coordinator call
// (backend/instrument.ts).

export interface Tracing {
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').toLowerCase();
  if (exporter === 'none') return false;
  return (
    exporter === 'otlp' ||
    !!env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  );
}

/** Starts the SDK when the environment asks for traces; null otherwise. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'zlake',
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The global provider, an AsyncLocalStorage context manager (so spans
  // parent across awaits) and the W3C trace-context propagator.
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
