/**
 * Metrics of a process, in prom-client: one Registry per process (createMetrics makes a new
 * one each time, so tests and processes never share a global). The sink and the consumer
 * keep their counters as plain numbers on this object (cheap to bump on the hot path);
 * they are read into the registry at each scrape under their historical names and labels,
 * so dashboards keep working. Latencies are histograms observed where they happen.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ConsumerStats } from "./kafka/consumer";

export type PipelineMetrics = {
  transactions: Record<string, number>;
  facts: Record<string, number>;
  duplicates: number;
  parked: number;
  unparked: number;
  /** parked facts dropped: their pool or coin is not the platform's, or they waited past the limit */
  parkedExpired: number;
  dropped: number;
  unknownDiscriminators: number;
  batches: number;
  /** transactions the sink set aside because they failed on their own (dead letters) */
  deadLettered: number;
  /** time spent in sink writes, ms */
  writeMs: number;
  /** time spent in each step of the sink's writes, ms */
  stepMs: Record<string, number>;
  /** this process's registry: what /metrics serves */
  registry: Registry;
  /** seconds per sink write (one group of batches) */
  sinkWriteSeconds: Histogram;
  /** seconds per Kafka batch, fetched to committed */
  consumerBatchSeconds: Histogram;
};

/** Buckets from 1 ms to 10 s: API answers, sink writes and Kafka batches all fall inside. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(registry = new Registry()): PipelineMetrics {
  const m: PipelineMetrics = {
    transactions: {}, facts: {}, duplicates: 0, parked: 0, unparked: 0, parkedExpired: 0, dropped: 0, unknownDiscriminators: 0, batches: 0, deadLettered: 0, writeMs: 0, stepMs: {},
    registry,
    sinkWriteSeconds: new Histogram({ name: "acp_sink_write_duration_seconds", help: "Duration of sink writes (one group of batches)", buckets: LATENCY_BUCKETS, registers: [registry] }),
    consumerBatchSeconds: new Histogram({ name: "acp_consumer_batch_duration_seconds", help: "Duration of Kafka batches, fetched to committed", buckets: LATENCY_BUCKETS, registers: [registry] }),
  };
  counterOf(registry, "acp_transactions_total", "Transactions received, by decode status", ["status"], () => Object.entries(m.transactions).map(([s, v]) => [{ status: s }, v]));
  counterOf(registry, "acp_facts_stored_total", "Facts stored, by kind", ["kind"], () => Object.entries(m.facts).map(([k, v]) => [{ kind: k }, v]));
  counterOf(registry, "acp_duplicate_rows_total", "Rows skipped because their key was already stored", [], () => [[{}, m.duplicates]]);
  counterOf(registry, "acp_parked_facts_total", "Facts parked until their pool or coin is known", [], () => [[{}, m.parked]]);
  counterOf(registry, "acp_unparked_facts_total", "Parked facts replayed", [], () => [[{}, m.unparked]]);
  counterOf(registry, "acp_parked_facts_expired_total", "Parked facts dropped: their pool or coin is not the platform's, or they waited too long", [], () => [[{}, m.parkedExpired]]);
  counterOf(registry, "acp_dropped_facts_total", "Facts of pools that are not the platform's", [], () => [[{}, m.dropped]]);
  counterOf(registry, "acp_unknown_discriminators_total", "Instructions or events with a discriminator no IDL knows", [], () => [[{}, m.unknownDiscriminators]]);
  counterOf(registry, "acp_batches_total", "Batches written", [], () => [[{}, m.batches]]);
  counterOf(registry, "acp_sink_dead_letters_total", "Transactions the sink set aside because they failed on their own", [], () => [[{}, m.deadLettered]]);
  counterOf(registry, "acp_sink_write_seconds_total", "Time spent writing batches", [], () => [[{}, Math.round(m.writeMs) / 1000]]);
  counterOf(registry, "acp_sink_step_seconds_total", "Time spent in each step of batch writes", ["step"], () => Object.entries(m.stepMs).map(([s, v]) => [{ step: s }, Math.round(v) / 1000]));
  return m;
}

/** The Kafka consumer's counters and lag (scaled mode), and its batch histogram handed to the consumer. */
export function watchConsumer(m: PipelineMetrics, stats: ConsumerStats): void {
  stats.batchSeconds = m.consumerBatchSeconds;
  if (m.registry.getSingleMetric("acp_consumer_lag")) return;
  counterOf(m.registry, "acp_consumer_batches_total", "Kafka batches stored and committed", [], () => [[{}, stats.batches]]);
  counterOf(m.registry, "acp_consumer_messages_total", "Kafka messages stored and committed", [], () => [[{}, stats.messages]]);
  counterOf(m.registry, "acp_dead_letters_total", "Messages sent to a dead-letter topic", [], () => [[{}, stats.deadLetters]]);
  new Gauge({ name: "acp_consumer_lag", help: "Messages not yet committed by the consumer group", registers: [m.registry], collect() { this.set(stats.lag); } });
}

/** The HTTP latency histogram of an app, by route template (never the raw path), method and status. */
export function httpDurationHistogram(registry: Registry): Histogram<"route" | "method" | "status"> {
  const existing = registry.getSingleMetric("acp_http_request_duration_seconds");
  if (existing) return existing as Histogram<"route" | "method" | "status">;
  return new Histogram({ name: "acp_http_request_duration_seconds", help: "Duration of HTTP requests, by route template, method and status", labelNames: ["route", "method", "status"], buckets: LATENCY_BUCKETS, registers: [registry] });
}

export function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/** The registry in Prometheus text format; with `consumer`, its counters are included. */
export async function prometheusText(m: PipelineMetrics, consumer: ConsumerStats | null = null): Promise<string> {
  if (consumer) watchConsumer(m, consumer);
  return m.registry.metrics();
}

/** A counter whose values live elsewhere: read at each scrape. */
function counterOf<L extends string>(registry: Registry, name: string, help: string, labelNames: L[], read: () => [Partial<Record<L, string>>, number][]) {
  new Counter({
    name, help, labelNames, registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels as never, value);
    },
  });
}
