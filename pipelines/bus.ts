/**
 * The bus between ingest and the pipelines. In-process (the embedded default) it
 * hands each batch straight to the sink, so `publish` resolves only once the
 * batch is stored. The Kafka bus (scaled mode) implements the same interface.
 */
import type { Bus } from "../ingest/contract/bus";
import type { FactSink } from "./sink";

export type { Bus } from "../ingest/contract/bus";

export function createInProcessBus(sink: FactSink): Bus {
  let closed = false;
  return {
    async publish(batch) {
      if (closed) throw new Error("bus is closed");
      if (batch.length) await sink.write(batch);
    },
    async close() {
      closed = true;
    },
  };
}
