/**
 * The Solana JSON-RPC client (web3.js v1 Connection) and the few reads the
 * platform makes through it.
 */
import { Connection, PublicKey } from "@solana/web3.js";

export type SolanaRpc = {
  connection: Connection;
  /** account data for each address (null when the account does not exist), in one getMultipleAccounts call per 100 */
  getAccounts(addresses: string[]): Promise<(Uint8Array | null)[]>;
  /** like getAccounts, with each account's lamports */
  getAccountInfos(addresses: string[]): Promise<({ lamports: number; data: Uint8Array } | null)[]>;
  /** up to 100 accounts read together (one getMultipleAccounts call), with the context slot of the read */
  getAccountsAtSlot(addresses: string[]): Promise<{ slot: number; accounts: (Uint8Array | null)[] }>;
};

export function createSolanaRpc(url: string): SolanaRpc {
  const connection = new Connection(url, { commitment: "confirmed", disableRetryOnRateLimit: false });
  async function getAccountInfos(addresses: string[]) {
    const out: ({ lamports: number; data: Uint8Array } | null)[] = [];
    for (let i = 0; i < addresses.length; i += 100) {
      const chunk = addresses.slice(i, i + 100).map((a) => new PublicKey(a));
      const infos = await connection.getMultipleAccountsInfo(chunk);
      for (const info of infos) out.push(info ? { lamports: info.lamports, data: new Uint8Array(info.data) } : null);
    }
    return out;
  }
  async function getAccountsAtSlot(addresses: string[]) {
    if (addresses.length > 100) throw new Error("getAccountsAtSlot reads at most 100 accounts at once");
    const { context, value } = await connection.getMultipleAccountsInfoAndContext(addresses.map((a) => new PublicKey(a)));
    return { slot: context.slot, accounts: value.map((info) => (info ? new Uint8Array(info.data) : null)) };
  }
  return {
    connection,
    getAccountInfos,
    getAccountsAtSlot,
    getAccounts: async (addresses) => (await getAccountInfos(addresses)).map((a) => a?.data ?? null),
  };
}
