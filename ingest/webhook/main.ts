/**
 * `npm run webhook -- show|sync`: the Helius webhook's address list by hand.
 *
 *   show   the webhook's id, URL, type, transaction types and addresses (never its auth header)
 *   sync   sets its addresses to the platform's (see address-sync.ts) and prints what changed
 *
 * Needs HELIUS_API_KEY and HELIUS_WEBHOOK_ID (HELIUS_API_URL for another host). sync reads
 * PLATFORM_CONFIGS, TREASURY_ADDRESS, the configs' fee claimers (their accounts over
 * SOLANA_RPC_URL) and the graduated pools in Postgres: DATABASE_URL, else
 * the embedded Postgres under DATA_DIR/postgres (the running service's, if any; see
 * infra/postgres-attach.ts). Exit codes: 0 done, 1 failed, 2 bad usage or configuration.
 */
import type { Config } from "../../infra/config";
import { configOrExit } from "../../compose/boot";
import { openPostgresOrSay } from "../../infra/postgres-attach";
import { syncWebhookAddresses } from "../helius/address-sync";
import { loadPlatformConfigs } from "../load-configs";
import { treasuryAddresses } from "../contract/configs";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createWebhookApi, type WebhookApi } from "../helius/webhook-api";

const USAGE = `Helius webhook address list.

usage:
  npm run webhook -- show    the webhook's URL, type and addresses
  npm run webhook -- sync    set its addresses to the platform's: PLATFORM_CONFIGS, the DAMM v2 pools
                             their coins graduated to, and the treasury (TREASURY_ADDRESS and the
                             configs' fee claimers); prints what changed
  npm run webhook -- --help

Needs HELIUS_API_KEY and HELIUS_WEBHOOK_ID (HELIUS_API_URL to reach another host).
sync reads the configs' fee claimers over SOLANA_RPC_URL, and uses DATABASE_URL, else the embedded
Postgres under DATA_DIR/postgres (the running service's, if any).`;

type Command = "show" | "sync";

function usage(message: string): number {
  console.error(`webhook: ${message}\n\n${USAGE}`);
  return 2;
}

async function show(api: WebhookApi, webhookId: string): Promise<number> {
  const w = await api.get(webhookId);
  const active = typeof w.active === "boolean" ? (w.active ? "yes" : "no (re-enable it in the Helius dashboard)") : "-";
  console.log(`webhook            ${w.webhookID}`);
  console.log(`url                ${w.webhookURL}`);
  console.log(`type               ${w.webhookType}`);
  console.log(`transaction types  ${w.transactionTypes.join(", ") || "-"}`);
  console.log(`active             ${active}`);
  console.log(`auth header        ${w.authHeader ? "set (not shown)" : "not set: the ingest endpoint will refuse its calls"}`);
  console.log(`addresses (${w.accountAddresses.length}):`);
  for (const a of w.accountAddresses) console.log(`  ${a}`);
  return 0;
}

async function sync(config: Config, api: WebhookApi, webhookId: string): Promise<number> {
  const configs = config.platformConfigs.map((c) => c.address);
  if (configs.length === 0) return usage("PLATFORM_CONFIGS is not set: there is nothing to sync the webhook to");
  if (!config.rpcUrl) return usage("SOLANA_RPC_URL is not set: sync reads the configs' fee claimers (part of the treasury) from the chain");
  // without them the webhook would lose the fee claimers the running service put on it
  const treasury = treasuryAddresses(await loadPlatformConfigs(config.platformConfigs, createSolanaRpc(config.rpcUrl).getAccounts), config.treasuryAddress);
  const pg = await openPostgresOrSay(config, "webhook");
  if (!pg) return 1;
  try {
    const r = await syncWebhookAddresses({ sql: pg.sql, api, webhookId, configs, treasury });
    if (!r.changed) {
      console.log(`webhook ${r.webhookId}: already in sync (${r.total} addresses)`);
      return 0;
    }
    console.log(`webhook ${r.webhookId}: added ${r.added.length}, removed ${r.removed.length}, now ${r.total} addresses`);
    for (const a of r.added) console.log(`  + ${a}`);
    for (const a of r.removed) console.log(`  - ${a}`);
    return 0;
  } finally {
    await pg.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help")) {
    console.log(USAGE);
    return 0;
  }
  if (argv.length === 0) return usage("no command given");
  if (argv.length > 1) return usage(`${argv[0]} takes no arguments (got ${argv.slice(1).join(" ")})`);
  const command = argv[0] as Command;
  if (command !== "show" && command !== "sync") return usage(`unknown command "${argv[0]}"`);

  const config = configOrExit();
  const { apiKey, webhookId, apiUrl } = config.helius;
  if (!apiKey) return usage("HELIUS_API_KEY is not set (the API key of the Helius account that owns the webhook)");
  if (!webhookId) return usage("HELIUS_WEBHOOK_ID is not set (the webhook's id, shown in the Helius dashboard)");
  const api = createWebhookApi({ baseUrl: apiUrl, apiKey });
  try {
    return command === "show" ? await show(api, webhookId) : await sync(config, api, webhookId);
  } catch (err) {
    // messages from the API client never carry the key (webhook-api.ts redacts them)
    console.error(`webhook: ${(err as Error).message}`);
    return 1;
  }
}

process.exit(await main(process.argv.slice(2)));
