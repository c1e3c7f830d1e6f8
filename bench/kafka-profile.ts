/**
 * The scaled mode's Kafka path alone (bench/kafka.ts, the same phase `npm run bench` runs):
 * a webhook load through the Kafka bus into ClickHouse (producer and consumer in this
 * process), then a backlog drained by a fresh consumer group, each with the CPU per
 * transaction of every thread of this process, of the broker and of Postgres, the Kafka
 * batches and the sink writes they made.
 * The backlog is decoded as the scaled ingest process decodes (its stateless fact scope;
 * `--backlog-scope none` decodes every fact).
 * Run: `TMPDIR=/work/bench-data bun run bench/kafka-profile.ts --kafka-txs 60000 --backlog 300000`.
 */
import { parseArgs } from "node:util";
import { freshEngines } from "../infra/testing/engines";
import { createLogger } from "../infra/log";
import { loadConfig } from "../infra/config";
import { wirePlatform } from "../compose/wiring";
import { createSolPriceService } from "../infra/sol-price";
import { fixedPriceSourceTestDouble } from "../compose/testing/platform";
import { createSimulator, fixtureSimConfigs, simulatedPlatform } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { testKafkaBrokers, stopTestKafka } from "../infra/testing/kafka";
import { kafkaBodies, kafkaPhase } from "./kafka";
import { statelessScope } from "../compose/processes/ingest";

const { values: args } = parseArgs({
  options: { "kafka-txs": { type: "string", default: "60000" }, backlog: { type: "string", default: "300000" }, concurrency: { type: "string", default: "64" }, "backlog-scope": { type: "string", default: "ingest" } },
});
const KAFKA_TXS = Number(args["kafka-txs"]);
const SECRET = "bench-webhook-secret-0123456789";
const say = (msg: string) => console.error(`[kafka-profile] ${msg}`);

const engines = await freshEngines("acp-kafka-profile", 20);
const log = createLogger("warn");
const simConfigs = fixtureSimConfigs(7);
const configs = simulatedConfigRegistry(simConfigs);
// the simulated treasury and platform token, as `npm start` names them
const simulated = simulatedPlatform(7, simConfigs);
const config = loadConfig({ SIMULATOR: "off", TREASURY_ADDRESS: simulated.treasury, PLATFORM_TOKEN_MINT: simulated.platformTokenMint });
const price = createSolPriceService([fixedPriceSourceTestDouble(150)], log);

const { bodies, trades } = kafkaBodies(simConfigs, KAFKA_TXS);
const result = await kafkaPhase({
  brokers: await testKafkaBrokers(),
  ch: engines.ch,
  wire: ({ bus }) => wirePlatform({ config, log, engines, configs, webhookSecret: SECRET, price, responseCache: false, bus }),
  secret: SECRET,
  bodies,
  expectedTrades: trades,
  concurrency: Number(args.concurrency),
  backlog: { sim: createSimulator({ seed: 9, configs: simConfigs, startTime: Math.floor(Date.now() / 1000) - 86400, secondsPerTx: 0.2, pools: 300 }), transactions: Number(args.backlog) },
  say,
  postgresDir: engines.dir,
  // the backlog as the scaled ingest process publishes it (`--backlog-scope none`: every fact, as before 2026-11-27)
  decodeOptions: { scope: args["backlog-scope"] === "none" ? null : statelessScope(configs, { treasuryAddress: simulated.treasury, platformTokenMint: simulated.platformTokenMint }) },
});
console.log(JSON.stringify(result, null, 1));
stopTestKafka();
await engines.stop();
process.exit(0);
