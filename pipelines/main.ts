/**
 * The pipelines process (scaled mode): consumes chain transactions from Kafka and
 * stores them (ClickHouse facts, Postgres state), committing offsets only after
 * the rows are stored. Scale by partitions: run up to one process per partition.
 * Built by compose/processes/pipelines.ts.
 */
import { createLogger } from "../infra/log";
import { configOrExit, stopOnSignal } from "../compose/boot";
import { startPipelines } from "../compose/processes/pipelines";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "pipelines" });
await stopOnSignal(log, startPipelines(config, log));
