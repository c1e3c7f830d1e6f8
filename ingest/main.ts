/**
 * The ingest process (scaled mode): the Helius webhook receiver. Decodes on worker
 * threads and publishes to Kafka; answers 200 only once Kafka acknowledged, 503
 * fast when it cannot. Stateless: run as many as needed behind a load balancer.
 * Built by compose/processes/ingest.ts.
 */
import { createLogger } from "../infra/log";
import { configOrExit, stopOnSignal } from "../compose/boot";
import { startIngest } from "../compose/processes/ingest";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "ingest" });
await stopOnSignal(log, startIngest(config, log));
