/**
 * The ingest process (scaled mode, `ingest/main.ts`): the Helius webhook receiver. Decodes
 * on worker threads and publishes to Kafka; answers 200 only once Kafka acknowledged, 503
 * fast when it cannot. Stateless: run as many as needed behind a load balancer.
 *
 * It decodes with the platform's fact scope (ingest/contract/fact-scope.ts) as the all-in-one
 * does, from the same configs the pipelines read (the simulated ones, or PLATFORM_CONFIGS over
 * SOLANA_RPC_URL): only the balance and SOL facts the pipelines can use cross Kafka. It holds no
 * state, so it cannot know which mints are platform coins: every coin's balances but the quote
 * mints' are kept (the pipelines drop the rest), the pools' vaults and other wallets' SOL are
 * not. Without configs (no simulator, no RPC) it decodes every fact.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { createApp } from "../../api/app";
import { createDecodePool } from "../../ingest/helius/decode-pool";
import { platformConfigs, processHandle, startStep } from "../boot";
import { PoolRegistry, type TreasuryConfig } from "../../pipelines/platform/registry";
import type { ConfigRegistry } from "../../ingest/contract/configs";
import type { FactScope } from "../../ingest/contract/fact-scope";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { withSimulatedPlatform } from "./simulator";
import { kafkaBus, kafkaOrExit, kafkaWithTopic } from "../kafka";

export async function startIngest(config: Config, log: Logger) {
  const kafkaConfig = kafkaOrExit(config, "ingest");
  if (!config.webhookSecret) log.warn("HELIUS_WEBHOOK_SECRET is not set: the webhook refuses every call with 401");
  const kafka = await startStep(log, "kafka topics", () => kafkaWithTopic(kafkaConfig, "ingest"));
  const bus = await startStep(log, "kafka producer", () => kafkaBus(kafka, kafkaConfig));
  const scope = await startStep(log, "fact scope", () => ingestScope(config, log));
  const decoder = createDecodePool(config.decodeWorkers, { scope });
  let published = 0;
  // ready while Kafka takes our writes: the last publish decides (connected at start); after a
  // failed one, each readiness check asks Kafka again (connecting a fresh producer), so the
  // instance comes back even when the load balancer sends it no webhook while it is not ready
  let kafkaAccepting = true;
  const app = createApp({
    log,
    ready: async () => (kafkaAccepting ||= await bus.ready()),
    metricsToken: config.metrics.token,
    metricsText: () => `# TYPE acp_ingest_up gauge\nacp_ingest_up 1\n# TYPE acp_ingest_published_batches_total counter\nacp_ingest_published_batches_total ${published}\n`,
    data: null,
    ingest: {
      bus: {
        publish: async (b) => {
          try {
            await bus.publish(b);
            kafkaAccepting = true;
            published++;
          } catch (err) {
            kafkaAccepting = false;
            throw err;
          }
        },
        close: () => bus.close(),
      },
      decoder,
      webhookSecret: () => config.webhookSecret,
      log: log.child({ stage: "webhook" }),
    },
  });
  const server = await startStep(log, `listening on port ${config.port}`, () => app.listen({ port: config.port, hostname: "0.0.0.0" }), () => [() => bus.close(), () => decoder.close()]);
  const port = server.server?.port;
  log.info("listening", { port, brokers: kafkaConfig.brokers });
  return processHandle(log, port, () => [() => server.stop(), () => bus.close(), () => decoder.close()]);
}

/** The fact scope of a stateless ingest (see the top); null without configs to read. */
export async function ingestScope(config: Config, log: Logger): Promise<FactScope | null> {
  if (!config.simulator.enabled && !config.rpcUrl) {
    log.warn("no platform configs to read (SIMULATOR off, no SOLANA_RPC_URL): every balance and SOL fact is decoded and published");
    return null;
  }
  const { configs, simConfigs } = await platformConfigs(config, log, config.rpcUrl ? createSolanaRpc(config.rpcUrl) : null);
  const configured = simConfigs ? withSimulatedPlatform(config, simConfigs, log) : config;
  return statelessScope(configs, { treasuryAddress: configured.treasuryAddress, platformTokenMint: configured.tokenomics.platformTokenMint });
}

/** The scope of a decoder that cannot know the platform's coins (`coins` null). */
export function statelessScope(configs: ConfigRegistry, treasury: TreasuryConfig): FactScope {
  return { ...new PoolRegistry(configs, treasury).factScope(), coins: null };
}
