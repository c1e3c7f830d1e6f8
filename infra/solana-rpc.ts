/**
 * The Solana JSON-RPC client (web3.js v1 Connection) and the few reads the
 * platform makes through it.
 */
import { Connection, PublicKey } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { encodeBase58 } from "./base58";
import { giveUp, retry } from "./retry";

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

/** A few quick attempts: the holder reconciliation runs again at its next schedule anyway. */
const RPC_RETRY = { retries: 3, minDelayMs: 500, maxDelayMs: 5000 };

class TransientRpcError extends Error {}

/** One JSON-RPC call; network failures, HTTP 429 and 5xx are retried, anything else gives up. */
async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    throw new TransientRpcError(`${method}: ${(err as Error).message}`);
  }
  if (res.status === 429 || res.status >= 500) throw new TransientRpcError(`${method}: HTTP ${res.status}`);
  if (!res.ok) giveUp(new Error(`${method}: HTTP ${res.status}`));
  const body = (await res.json().catch(() => giveUp(new Error(`${method}: the answer is not JSON`)))) as { result?: unknown; error?: { code?: number; message?: string } };
  if (body.error) giveUp(new Error(`${method}: ${body.error.message ?? "error"} (${body.error.code ?? "?"})`));
  return body.result;
}

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** `{ context: { slot }, value: [{ pubkey, account: { data: [base64, "base64"] } }] }` checked entry by entry; throws naming the first problem. */
export function tokenAccountsAnswer(result: unknown): TokenAccountsAtSlot {
  const r = result as { context?: { slot?: unknown }; value?: unknown };
  if (typeof r !== "object" || r === null || typeof r.context?.slot !== "number" || !Number.isSafeInteger(r.context.slot) || r.context.slot < 0)
    throw new Error("getProgramAccounts: no context slot in the answer");
  if (!Array.isArray(r.value)) throw new Error("getProgramAccounts: the answer's value is not a list");
  const accounts = new Array<TokenAccountBalance>(r.value.length);
  for (let i = 0; i < r.value.length; i++) {
    const e = r.value[i] as { pubkey?: unknown; account?: { data?: unknown } };
    const data = e?.account?.data;
    if (typeof e?.pubkey !== "string" || !ADDRESS.test(e.pubkey)) throw new Error(`getProgramAccounts: entry ${i} has no address`);
    if (!Array.isArray(data) || data[1] !== "base64" || typeof data[0] !== "string") throw new Error(`getProgramAccounts: entry ${i} (${e.pubkey}) has no base64 data`);
    accounts[i] = ownerAndAmount(e.pubkey, Buffer.from(data[0], "base64"));
  }
  return { slot: r.context.slot, accounts };
}

/** owner and amount out of the sliced data; throws when the slice is not 40 bytes */
export function ownerAndAmount(account: string, data: Uint8Array): TokenAccountBalance {
  if (data.length !== OWNER_AND_AMOUNT.length) throw new Error(`token account ${account}: ${data.length} bytes of owner and amount, expected ${OWNER_AND_AMOUNT.length}`);
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(32, true);
  return { account, owner: encodeBase58(data, 0, 32), amount };
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
  // Not through web3.js: its answer check and a PublicKey per account took 11 s for 20,000
  // accounts; this reads 100,000 in well under a second (bench/holders-reconcile.ts).
  async function getTokenAccounts(mint: string, program: "spl-token" | "token-2022"): Promise<TokenAccountsAtSlot> {
    const byMint = { memcmp: { offset: 0, bytes: new PublicKey(mint).toBase58() } };
    const params = [
      (program === "spl-token" ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID).toBase58(),
      {
        commitment: "confirmed",
        withContext: true,
        encoding: "base64",
        dataSlice: OWNER_AND_AMOUNT,
        filters: program === "spl-token" ? [{ dataSize: TOKEN_ACCOUNT_SIZE }, byMint] : [byMint],
      },
    ];
    const body = await retry(() => rpcCall(url, "getProgramAccounts", params), RPC_RETRY);
    return tokenAccountsAnswer(body);
  }
  return {
    connection,
    getAccountInfos,
    getAccountsAtSlot,
    getTokenAccounts,
    getAccounts: async (addresses) => (await getAccountInfos(addresses)).map((a) => a?.data ?? null),
  };
}
