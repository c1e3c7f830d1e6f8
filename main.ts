/**
 * All-in-one process (the embedded default): engines under DATA_DIR, migrations, the bus
 * (in-process, or Kafka when KAFKA_BROKERS is set, with the consumer in this process too),
 * the HTTP API and webhook receiver, background refreshers, and, with no chain configured,
 * the simulator posting through the real webhook (it also plays a SOL price when no price
 * source is configured, and gives its coins images and descriptions). Built by
 * compose/processes/all-in-one.ts; any start-up failure logs one line and exits 1
 * (compose/boot.ts).
 */
import { createLogger } from "./infra/log";
import { configOrExit, stopOnSignal } from "./compose/boot";
import { startAllInOne } from "./compose/processes/all-in-one";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "all-in-one" });
await stopOnSignal(log, startAllInOne(config, log));
