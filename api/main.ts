/**
 * The api process (scaled mode): the Data API, the Launch API and stored media,
 * reading ClickHouse and Postgres. Stateless apart from its short response cache
 * and per-key rate windows: run replicas freely (launch confirmation in the
 * background is the agents process's job). Built by compose/processes/api.ts.
 */
import { createLogger } from "../infra/log";
import { configOrExit, stopOnSignal } from "../compose/boot";
import { startApi } from "../compose/processes/api";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "api" });
await stopOnSignal(log, startApi(config, log));
