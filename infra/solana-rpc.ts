/**
 * The Solana JSON-RPC client (web3.js v1 Connection) and the few reads the
 * platform makes through it.
 */
import { Connection, PublicKey } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import bs58 from "bs58";

/** One token account of a mint: its address, the wallet that owns it, its balance in atoms. */
export type TokenAccountBalance = { account: string; owner: string; amount: bigint };
/** What a token program holds of a mint, read at `slot` (the answer's context slot). */
export type TokenAccountsAtSlot = { slot: number; accounts: TokenAccountBalance[] };

export type SolanaRpc = {
  connection: Connection;
  /** account data for each address (null when the account does not exist), in one getMultipleAccounts call per 100 */
  getAccounts(addresses: string[]): Promise<(Uint8Array | null)[]>;
  /** like getAccounts, with each account's lamports */
  getAccountInfos(addresses: string[]): Promise<({ lamports: number; data: Uint8Array } | null)[]>;
  /** up to 100 accounts read together (one getMultipleAccounts call), with the context slot of the read */
  getAccountsAtSlot(addresses: string[]): Promise<{ slot: number; accounts: (Uint8Array | null)[] }>;
  /**
   * Every token account of `mint` under one token program (getProgramAccounts filtered by the
   * mint, with its context slot). Throws on an answer that is not well formed.
   */
  getTokenAccounts(mint: string, program: "spl-token" | "token-2022"): Promise<TokenAccountsAtSlot>;
};

// A token account is mint (0..32), owner (32..64), amount (u64 LE, 64..72), then more; the
// read asks only for owner and amount. Token-2022 accounts with extensions are longer than
// 165 bytes, so only SPL Token accounts are filtered by size.
const TOKEN_ACCOUNT_SIZE = 165;
const OWNER_AND_AMOUNT = { offset: 32, length: 40 };

/** owner and amount out of the sliced data; throws when the slice is not 40 bytes */
export function ownerAndAmount(account: string, data: Uint8Array): TokenAccountBalance {
  if (data.length !== OWNER_AND_AMOUNT.length) throw new Error(`token account ${account}: ${data.length} bytes of owner and amount, expected ${OWNER_AND_AMOUNT.length}`);
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(32, true);
  return { account, owner: bs58.encode(data.subarray(0, 32)), amount };
}

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
  async function getTokenAccounts(mint: string, program: "spl-token" | "token-2022"): Promise<TokenAccountsAtSlot> {
    const byMint = { memcmp: { offset: 0, bytes: new PublicKey(mint).toBase58() } };
    const { context, value } = await connection.getProgramAccounts(program === "spl-token" ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID, {
      withContext: true,
      encoding: "base64",
      dataSlice: OWNER_AND_AMOUNT,
      filters: program === "spl-token" ? [{ dataSize: TOKEN_ACCOUNT_SIZE }, byMint] : [byMint],
    });
    return { slot: context.slot, accounts: value.map((a) => ownerAndAmount(a.pubkey.toBase58(), a.account.data)) };
  }
  return {
    connection,
    getAccountInfos,
    getAccountsAtSlot,
    getTokenAccounts,
    getAccounts: async (addresses) => (await getAccountInfos(addresses)).map((a) => a?.data ?? null),
  };
}
