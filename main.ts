/**
 * All-in-one process (the embedded default): engines under DATA_DIR, migrations,
 * the bus (in-process, or Kafka when KAFKA_BROKERS is set, with the consumer in
 * this process too), the HTTP API and webhook receiver, background refreshers,
 * and, with no chain configured, the simulator posting through the real webhook (it also
 * plays a SOL price when no price source is configured, and gives its coins images and
 * descriptions). Any start-up failure logs one line and exits 1 (infra/boot.ts).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createLogger } from "./infra/log";
import { configOrExit, onShutdown, openEngines, platformConfigs, startStep } from "./compose/boot";
import { createSolanaRpc } from "./infra/solana-rpc";
import { priceSources, wirePlatform } from "./compose/wiring";
import { createSolPriceService } from "./infra/sol-price";
import { createSimulator, runSimulator } from "./ingest/simulator";
import { simulatedMetadataResolver } from "./ingest/simulator/coin-media";
import { readProgress, writeProgress } from "./ingest/simulator/progress";
import { startAgentBackground } from "./agents/background";
import { retry } from "./infra/retry";
import { createKafkaBus, kafkaClient } from "./pipelines/kafka/bus";
import { consumerLag, ensureTopics } from "./pipelines/kafka/admin";
import { startTransactionConsumer } from "./pipelines/kafka/consumer";
import { storedSignatures } from "./compose/stored";
import { scheduleReconciliation } from "./ingest/reconcile/reconcile";
import { createChainReader } from "./ingest/backfill/rpc";

const config = configOrExit();
const log = createLogger(config.logLevel, { process: "all-in-one" });
const { pg, ch } = await openEngines(config, log);
// any later start-up failure: one line, the engines stopped, exit 1 (boot.ts startFailed)
const step = <T>(what: string, fn: () => T | Promise<T>) => startStep(log, what, fn, () => [() => ch.close(), () => pg.stop()]);
const rpc = config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null;
const { configs, simConfigs } = await step("platform configs", () => platformConfigs(config, log, rpc));

// The simulator posts through the real webhook; without a configured secret it gets a per-run one.
const webhookSecret = config.webhookSecret ?? (simConfigs ? randomBytes(24).toString("base64url") : null);
if (!webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");

const kafka = config.kafka ? kafkaClient([...config.kafka.brokers], "all-in-one") : null;
if (kafka && config.kafka) await step("kafka topics", () => ensureTopics(kafka, { ...config.kafka!, topics: [config.kafka!.topic] }));
const bus = kafka && config.kafka ? await step("kafka producer", () => createKafkaBus(kafka, { topic: config.kafka!.topic })) : undefined;
// The simulator plays a SOL price too when no real source is configured (the demo shows USD figures).
const sources = priceSources(config, rpc, { simulator: simConfigs !== null });
const priceSimulated = sources.some((s) => s.simulated);
const price = createSolPriceService(sources, log.child({ stage: "price" }));
const platform = await step("platform", () => wirePlatform({ config, log, engines: { ch, sql: pg.sql }, configs, webhookSecret, rpc, bus, price }));
const consumer =
  kafka && config.kafka
    ? await step("kafka consumer", () => startTransactionConsumer({ kafka, topic: config.kafka!.topic, groupId: config.kafka!.groupId, sink: platform.sink, log: log.child({ stage: "consumer" }), stats: platform.consumerStats }))
    : null;
const lagTimer =
  kafka && config.kafka
    ? setInterval(() => {
        consumerLag(kafka, config.kafka!.groupId, config.kafka!.topic)
          .then((lag) => (platform.consumerStats.lag = lag))
          .catch((err) => log.warn("consumer lag unavailable", { err: (err as Error).message }));
      }, 10_000)
    : null;
const server = await step(`listening on port ${config.port}`, () => platform.app.listen({ port: config.port, hostname: "0.0.0.0" }));
log.info("listening", { port: server.server?.port, bus: kafka ? "kafka" : "in-process", configs: configs.all.map((c) => `${c.role}:${c.address}`) });

// Heals what the webhook missed: re-reads recent signatures of every platform address (one process at a time).
const reconcileTask =
  config.rpcUrl && !simConfigs
    ? scheduleReconciliation({ sql: pg.sql, ch, reader: createChainReader(config.rpcUrl), bus: platform.bus, stored: storedSignatures({ ch, sql: pg.sql }), configs, log: log.child({ stage: "reconcile" }) })
    : null;

const stopSimulator = new AbortController();
let simulatorRun: Promise<unknown> | null = null;
const background = startAgentBackground({
  config,
  sql: pg.sql,
  rpc,
  log,
  launches: platform.launches,
  simulated: simConfigs !== null,
  // the simulator's coins get their images and descriptions through the coin-metadata job
  metadataResolver: simConfigs ? simulatedMetadataResolver(platform.launches.media) : undefined,
});
onShutdown(log, () => [
  () => reconcileTask?.stop(),
  () => stopSimulator.abort(),
  () => lagTimer && clearInterval(lagTimer),
  () => background.stop(),
  () => platform.addressSync?.stop(),
  () => simulatorRun,
  () => server.stop(),
  () => platform.bus.close(),
  () => consumer?.stop(),
  () => platform.sink.settled(),
  () => platform.decoder.close(),
  () => ch.close(),
  () => pg.stop(),
]);

if (simConfigs) {
  log.info("no SOLANA_RPC_URL: the simulator plays a platform through the webhook", {
    seed: config.simulator.seed,
    txPerSecond: config.simulator.txPerSecond,
  });
  if (priceSimulated)
    log.info("no SOL price source configured: the SOL price is simulated (a random walk from the seed; /price/sol reports source aggregator)", {
      seed: config.simulator.seed,
    });
  const secondsPerTx = 1 / config.simulator.txPerSecond; // chain time follows the wall clock
  const progressFile = join(config.dataDir, "simulator.json");
  const resumed = readProgress(progressFile, config.simulator.seed);
  const simulator = createSimulator({
    seed: config.simulator.seed,
    configs: simConfigs,
    startTime: Math.floor(Date.now() / 1000 - resumed * secondsPerTx),
    secondsPerTx,
  });
  // Continue the same chain after a restart: skip what an earlier run already posted.
  for (let skipped = 0; skipped < resumed; skipped += 10_000) simulator.next(Math.min(10_000, resumed - skipped));
  if (resumed) log.info("simulator resumed", { skipped: resumed });
  let posted = resumed;
  const url = `http://127.0.0.1:${server.server?.port}/v1/ingest/helius`;
  simulatorRun = runSimulator({
    simulator,
    txPerSecond: config.simulator.txPerSecond,
    batchSize: Math.max(1, Math.min(100, Math.ceil(config.simulator.txPerSecond / 4))),
    signal: stopSimulator.signal,
    post: async (body) => {
      // a refused batch (503 while storage catches up) is sent again until it is taken, so the simulated chain stays whole
      await retry(
        async () => {
          const res = await fetch(url, { method: "POST", headers: { authorization: webhookSecret!, "content-type": "application/json" }, body: JSON.stringify(body) });
          if (!res.ok) throw new Error(`the webhook answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        },
        {
          retries: Infinity,
          minDelayMs: 250,
          maxDelayMs: 5000,
          signal: stopSimulator.signal,
          onRetry: (err, attempt) => log.warn("simulator post refused; retrying", { attempt, err: (err as Error).message }),
        },
      );
      posted += body.length;
      writeProgress(progressFile, config.simulator.seed, posted);
    },
  }).catch((err) => {
    if (!stopSimulator.signal.aborted) log.error("simulator stopped", { err });
  });
}
