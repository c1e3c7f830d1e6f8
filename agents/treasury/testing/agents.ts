/**
 * Tests: an agent whose vault key the platform holds (sealed in vault_keys, as the Launch API
 * stores it), its holders on the loopback RPC test double, and claimed fees in ClickHouse.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import type { Sql } from "../../../infra/postgres";
import type { ClickHouse } from "../../../infra/clickhouse";
import { storeTreasuryFacts } from "../../../pipelines/priced-rows";
import { encryptSecretKey } from "../../../infra/vault-keys";
import { tokenAccount, type startRpcTestDouble } from "../../../infra/testing/rpc-double";

export const testVaultEncryptionKey = () => new Uint8Array(randomBytes(32));
export const newAddress = () => Keypair.generate().publicKey.toBase58();

export type TestAgent = { mint: string; vault: Keypair; creator: string };

export async function agentWithVault(sql: Sql, o: { encryptionKey: Uint8Array | null; template?: string; config?: string; creator?: string }): Promise<TestAgent> {
  const mint = newAddress();
  const vault = Keypair.generate();
  const creator = o.creator ?? newAddress();
  await sql`
    INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, template, state, name, presence)
    VALUES (${mint}, 'Coin', 'CN', ${creator}, ${vault.publicKey.toBase58()}, ${o.config ?? ""}, ${o.template ?? "patron"}, 'awake', 'Ada', 'influencer')`;
  if (o.encryptionKey)
    await sql`INSERT INTO vault_keys (vault, launch_id, sealed) VALUES (${vault.publicKey.toBase58()}, ${randomUUID()}, ${Buffer.from(encryptSecretKey(vault.secretKey, o.encryptionKey, vault.publicKey.toBase58()))})`;
  return { mint, vault, creator };
}

/** Token accounts of `mint` on the double, one per holder (owner -> atoms). */
export function holdersOnChain(rpc: Pick<ReturnType<typeof startRpcTestDouble>, "setAccount">, mint: string, holders: Map<string, bigint>): void {
  for (const [owner, amount] of holders) rpc.setAccount(newAddress(), tokenAccount(mint, owner, amount));
}

/** The vault's creator fee claim of `lamports` on its coin (a fee_claims fact, with a signature shaped as a real one: global reads list it). */
export async function claimedFees(ch: ClickHouse, mint: string, vault: string, lamports: bigint): Promise<void> {
  await storeTreasuryFacts(ch, { claims: [
    { mint, slot: 5, signature: bs58.encode(randomBytes(64)), ix: 0, inner: -1, at: Math.floor(Date.now() / 1000), kind: "trading_fee", venue: "dbc", role: "creator", pool: newAddress(), claimer: vault, base_amount: 0n, quote_amount: lamports },
  ] });
}
