import type { ConsumerStats } from "./kafka/consumer";
/** Counters the pipelines keep; served in Prometheus text format and logged. */
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
};

export function createMetrics(): PipelineMetrics {
  return { transactions: {}, facts: {}, duplicates: 0, parked: 0, unparked: 0, parkedExpired: 0, dropped: 0, unknownDiscriminators: 0, batches: 0, deadLettered: 0, writeMs: 0, stepMs: {} };
}

export function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

export function prometheusText(m: PipelineMetrics, consumer: ConsumerStats | null = null): string {
  const lines: string[] = [];
  const counter = (name: string, help: string, values: [Record<string, string>, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const [labels, value] of values) {
      const l = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(",");
      lines.push(`${name}${l ? `{${l}}` : ""} ${value}`);
    }
  };
  counter("acp_transactions_total", "Transactions received, by decode status", Object.entries(m.transactions).map(([s, v]) => [{ status: s }, v]));
  counter("acp_facts_stored_total", "Facts stored, by kind", Object.entries(m.facts).map(([k, v]) => [{ kind: k }, v]));
  counter("acp_duplicate_rows_total", "Rows skipped because their key was already stored", [[{}, m.duplicates]]);
  counter("acp_parked_facts_total", "Facts parked until their pool or coin is known", [[{}, m.parked]]);
  counter("acp_unparked_facts_total", "Parked facts replayed", [[{}, m.unparked]]);
  counter("acp_parked_facts_expired_total", "Parked facts dropped: their pool or coin is not the platform's, or they waited too long", [[{}, m.parkedExpired]]);
  counter("acp_dropped_facts_total", "Facts of pools that are not the platform's", [[{}, m.dropped]]);
  counter("acp_unknown_discriminators_total", "Instructions or events with a discriminator no IDL knows", [[{}, m.unknownDiscriminators]]);
  counter("acp_batches_total", "Batches written", [[{}, m.batches]]);
  counter("acp_sink_dead_letters_total", "Transactions the sink set aside because they failed on their own", [[{}, m.deadLettered]]);
  counter("acp_sink_write_seconds_total", "Time spent writing batches", [[{}, Math.round(m.writeMs) / 1000]]);
  counter("acp_sink_step_seconds_total", "Time spent in each step of batch writes", Object.entries(m.stepMs).map(([s, v]) => [{ step: s }, Math.round(v) / 1000]));
  if (consumer) {
    counter("acp_consumer_batches_total", "Kafka batches stored and committed", [[{}, consumer.batches]]);
    counter("acp_consumer_messages_total", "Kafka messages stored and committed", [[{}, consumer.messages]]);
    counter("acp_dead_letters_total", "Messages sent to a dead-letter topic", [[{}, consumer.deadLetters]]);
    lines.push("# HELP acp_consumer_lag Messages not yet committed by the consumer group", "# TYPE acp_consumer_lag gauge", `acp_consumer_lag ${consumer.lag}`);
  }
  return lines.join("\n") + "\n";
}
