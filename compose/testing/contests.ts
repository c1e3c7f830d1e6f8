/**
 * For contest tests: an agent the platform can pay from (a sealed vault key row, claimed fees
 * in ClickHouse as a treasury transfer to its vault), and a valid contest body to vary.
 */
import { Keypair } from "@solana/web3.js";
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";

export const newAddress = () => Keypair.generate().publicKey.toBase58();

export type ContestAgentOptions = { config: string; template?: string; claimedLamports?: bigint; vaultKey?: boolean; hidden?: boolean; name?: string };

/** An awake agent with its vault; `claimedLamports` (default 2 SOL) reach the vault as a treasury transfer. */
export async function contestAgent(sql: Sql, ch: ClickHouse, o: ContestAgentOptions) {
  const mint = newAddress();
  const vault = newAddress();
  const creator = newAddress();
  await sql`
    INSERT INTO agents (mint, coin_name, symbol, image_url, creator, vault, config, dbc_pool, state, hidden, name, template, category, presence)
    VALUES (${mint}, 'Coin ' || ${mint.slice(0, 4)}, 'CN', 'https://img.example/c.png', ${creator}, ${vault}, ${o.config}, ${newAddress()}, 'awake',
            ${o.hidden ?? false}, ${o.name ?? "Ada"}, ${o.template ?? "patron"}, 'rewards', 'influencer')`;
  if (o.vaultKey ?? true)
    await sql`INSERT INTO vault_keys (vault, launch_id, sealed) VALUES (${vault}, gen_random_uuid(), ${new Uint8Array([1, 2, 3])})`;
  const claimed = o.claimedLamports ?? 2_000_000_000n;
  if (claimed > 0n)
    await ch.insert("treasury_flows", [
      { at: 1_700_000_000, slot: 1, signature: `claimed-${vault}`, ix: 0, inner: -1, kind: "transfer", treasury: newAddress(), recipient: vault, lamports: claimed, atoms: 0n },
    ]);
  return { mint, vault, creator };
}

/** A valid raffle: 0.3 SOL for 3 winners, ending in an hour. */
export const contestBody = (o: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: "holders_raffle",
  title: "Weekly raffle",
  rules: "Hold the coin when it ends.",
  budgetLamports: "300000000",
  winners: 3,
  endsAt: new Date(Date.now() + 3600_000).toISOString(),
  ...o,
});
