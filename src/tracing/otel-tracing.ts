import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { PauseView } from '../approvals/records.js';
import type { TracingConfig } from '../config.js';
import type { ClosedGate } from '../metrics.js';
import type {
  ApprovalTracing,
  PauseSpan,
  PauseSpanAttributes,
  ResumeSent,
} from './approval-tracing.js';
import { formatTraceparent, parseTraceparent, type TraceParent } from './traceparent.js';

const TRACER = 'adk-slack-approvals';

/**
 * The spans of `ApprovalTracing`, made by the OpenTelemetry SDK and exported by the exporter
 * `OTEL_TRACES_EXPORTER` names (the OTLP exporter reads its own `OTEL_EXPORTER_OTLP_*`
 * variables: endpoint, headers, protocol, timeout). No global provider is registered: the app's
 * spans are parented explicitly, by the `traceparent` each pause stores.
 */
export class OtelApprovalTracing implements ApprovalTracing {
  private readonly tracer: Tracer;

  constructor(private readonly provider: TracerProvider) {
    this.tracer = provider.getTracer(TRACER);
  }

  startPause(parent: TraceParent | undefined, attributes: PauseSpanAttributes): PauseSpan {
    const span = this.tracer.startSpan(
      'approval.pause',
      {
        kind: attributes.source === 'api' ? SpanKind.SERVER : SpanKind.INTERNAL,
        attributes: {
          'approvals.app': attributes.app,
          'approvals.tools': [...attributes.tools],
          'approvals.source': attributes.source,
        },
      },
      contextOf(parent),
    );
    const context = span.spanContext();
    return {
      traceparent: formatTraceparent({
        traceId: context.traceId,
        spanId: context.spanId,
        flags: context.traceFlags,
      }),
      end: ({ pauseId, error }) => {
        if (pauseId !== undefined) span.setAttribute('approvals.pause_id', pauseId);
        finish(span, error);
      },
    };
  }

  cardPosted(view: PauseView, startedAt: number, error?: string): void {
    const span = this.tracer.startSpan(
      'approval.card',
      {
        kind: SpanKind.CLIENT,
        startTime: startedAt,
        attributes: { ...pauseAttributes(view), 'slack.channel': view.pause.card.channelId },
      },
      contextOf(parseTraceparent(view.pause.traceparent)),
    );
    finish(span, error);
  }

  gateDecided(gate: ClosedGate): void {
    const span = this.tracer.startSpan(
      'approval.decision',
      {
        ...(gate.openedAt === undefined ? {} : { startTime: gate.openedAt }),
        attributes: {
          'approvals.app': gate.app,
          'approvals.pause_id': gate.pauseId,
          'approvals.call_id': gate.callId,
          'approvals.tool': gate.tool,
          'approvals.rule': gate.rule,
          'approvals.outcome': gate.outcome,
          'approvals.decided_by': gate.decidedBy,
          ...(gate.decider === undefined ? {} : { 'approvals.decider': gate.decider }),
          ...(gate.seconds === undefined ? {} : { 'approvals.wait_seconds': gate.seconds }),
          'slack.channel': gate.channel,
        },
      },
      contextOf(parseTraceparent(gate.traceparent)),
    );
    span.end(gate.closedAt);
  }

  resumeSent(view: PauseView, sent: ResumeSent): void {
    const span = this.tracer.startSpan(
      'approval.resume',
      {
        kind: SpanKind.CLIENT,
        startTime: sent.startedAt,
        attributes: {
          ...pauseAttributes(view),
          'approvals.resume': sent.how,
          'approvals.attempt': sent.attempt,
        },
      },
      contextOf(parseTraceparent(view.pause.traceparent)),
    );
    finish(span, sent.error);
  }

  /** Exports the spans ended so far. */
  async flush(): Promise<void> {
    await this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

/**
 * The tracing `config` asks for: spans batched to its exporter (`OTEL_BSP_*` tune the batches).
 * `exporter` stands in for it (tests), and gets each span as it ends.
 */
export function openTracing(config: TracingConfig, exporter?: SpanExporter): OtelApprovalTracing {
  const processor: SpanProcessor =
    exporter === undefined
      ? new BatchSpanProcessor({ exporter: exporterOf(config) })
      : new SimpleSpanProcessor({ exporter });
  return new OtelApprovalTracing(
    new TracerProvider({
      resource: resourceFromAttributes({
        'service.name': config.serviceName,
        ...config.resourceAttributes,
      }),
      spanProcessors: [processor],
    }),
  );
}

function exporterOf(config: TracingConfig): SpanExporter {
  return config.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
}

function contextOf(parent: TraceParent | undefined) {
  if (parent === undefined) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.flags,
    isRemote: true,
  });
}

function pauseAttributes(view: PauseView): Attributes {
  return {
    'approvals.app': view.pause.adk.appName,
    'approvals.pause_id': view.pause.id,
    'approvals.tools': view.gates.map((gate) => gate.originalCall.name),
  };
}

function finish(span: Span, error: string | undefined): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  span.end();
}
