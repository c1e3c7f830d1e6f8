/**
 * For contest tests: an agent the platform can pay from (its vault key sealed with
 * TEST_VAULT_KEY, claimed fees as the vault's fee claim: agents/treasury/testing/agents.ts),
 * and a valid contest body to vary.
 */
import type { Sql } from "../../infra/postgres";
import type { ClickHouse } from "../../infra/clickhouse";
import { agentWithVault, claimedFees, testVaultEncryptionKey } from "../../agents/treasury/testing/agents";

export { newAddress } from "../../agents/treasury/testing/agents";

/** The VAULT_ENCRYPTION_KEY of test agents' sealed vault keys (the executor in tests unseals with it). */
export const TEST_VAULT_KEY = testVaultEncryptionKey();

export type ContestAgentOptions = { config: string; template?: string; claimedLamports?: bigint; vaultKey?: boolean; hidden?: boolean; creator?: string };

/**
 * An awake agent named Ada; `claimedLamports` (default 2 SOL) claimed by its vault; `vaultKey: false` = the platform
 * holds no key of it; `creator` its operator's wallet (default a new address).
 */
export async function contestAgent(sql: Sql, ch: ClickHouse, o: ContestAgentOptions) {
  const a = await agentWithVault(sql, { encryptionKey: o.vaultKey === false ? null : TEST_VAULT_KEY, template: o.template, config: o.config, creator: o.creator });
  const vault = a.vault.publicKey.toBase58();
  if (o.hidden) await sql`UPDATE agents SET hidden = true WHERE mint = ${a.mint}`;
  const claimed = o.claimedLamports ?? 2_000_000_000n;
  if (claimed > 0n) await claimedFees(ch, a.mint, vault, claimed);
  return { mint: a.mint, vault, vaultKey: a.vault, creator: a.creator };
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
