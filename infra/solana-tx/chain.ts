/**
 * The few RPC calls a launch makes (blockhash, block height, send, signature
 * statuses, whether its mint exists), with failures classified: UpstreamError = try again later (network,
 * HTTP 5xx/429, timeouts, node trouble); SendRejected = the cluster refused this
 * transaction (preflight simulation failure, bad signature, malformed), with logs.
 */
import type { Connection } from "@solana/web3.js";
import bs58 from "bs58";
import { PublicKey, VersionedTransaction } from "@solana/web3.js";

/** network trouble, HTTP 5xx/429, timeouts, JSON-RPC internal errors: retryable */
export class UpstreamError extends Error {
  override name = "UpstreamError";
}
/** the cluster refused the transaction (preflight/simulation failure, e.g. insufficient funds, blockhash not found) */
export class SendRejected extends Error {
  override name = "SendRejected";
  constructor(
    message: string,
    readonly logs: string[],
  ) {
    super(message);
  }
}
/** null = unknown to the cluster */
export type SignatureState = { confirmed: boolean; err: unknown | null } | null;
export type LaunchChain = {
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  blockHeight(): Promise<number>;
  /** sendRawTransaction with preflight; returns the signature (also when the cluster already processed these bytes) */
  send(raw: Uint8Array): Promise<string>;
  /** getSignatureStatuses (searchTransactionHistory true); confirmed = confirmationStatus confirmed|finalized */
  signatureStates(signatures: string[]): Promise<SignatureState[]>;
  /** getMultipleAccounts (confirmed): whether each address holds an account */
  accountsExist(addresses: string[]): Promise<boolean[]>;
};

/** JSON-RPC codes by which a node refuses the transaction itself (as opposed to being unable to answer). */
const REFUSALS = new Set([
  -32002, // transaction simulation (preflight) failed
  -32003, // signature verification failure
  -32013, // signature count mismatch
  -32600, // invalid request
  -32602, // invalid params (malformed or oversized transaction)
]);
const TIMEOUT_MS = 15_000;

type RpcResponse = { result?: unknown; error?: { code: number; message: string; data?: { logs?: string[] | null; err?: unknown } } };
// Connection's JSON-RPC transport (its fetch, headers and 429 policy); not in web3.js's typings.
type RawRpc = (method: string, args: unknown[]) => Promise<RpcResponse>;

async function withDeadline<T>(what: string, timeoutMs: number, run: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UpstreamError(`${what}: no answer from the Solana RPC within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([run(), deadline]);
  } catch (e) {
    if (e instanceof UpstreamError || e instanceof SendRejected) throw e;
    throw new UpstreamError(`${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

const isAlreadyProcessed = (e: NonNullable<RpcResponse["error"]>) => e.data?.err === "AlreadyProcessed" || /already been processed/i.test(e.message);

/** `timeoutMs` bounds each call (15 s by default); a send that timed out may still land: re-send the same bytes. */
export function createLaunchChain(connection: Connection, opts: { timeoutMs?: number } = {}): LaunchChain {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const upstream = <T>(what: string, run: () => Promise<T>) => withDeadline(what, timeoutMs, run);
  const rpc = (connection as unknown as { _rpcRequest?: RawRpc })._rpcRequest;
  if (typeof rpc !== "function") throw new Error("this @solana/web3.js Connection has no _rpcRequest: pin web3.js v1");
  return {
    latestBlockhash: () => upstream("getLatestBlockhash", () => connection.getLatestBlockhash("confirmed")),
    blockHeight: () => upstream("getBlockHeight", () => connection.getBlockHeight("confirmed")),

    async send(raw) {
      let signature: string;
      try {
        signature = bs58.encode(VersionedTransaction.deserialize(raw).signatures[0]!);
      } catch (e) {
        throw new SendRejected(`not a transaction: ${(e as Error).message}`, []);
      }
      const args = [Buffer.from(raw).toString("base64"), { encoding: "base64", preflightCommitment: "confirmed" }];
      const res = await upstream("sendTransaction", () => rpc("sendTransaction", args));
      if (res.error) {
        const { code, message, data } = res.error;
        // a duplicate of a transaction that already landed: the send has, in effect, succeeded
        if (isAlreadyProcessed(res.error)) return signature;
        if (REFUSALS.has(code)) throw new SendRejected(message, Array.isArray(data?.logs) ? data.logs : []);
        throw new UpstreamError(`sendTransaction: JSON-RPC error ${code}: ${message}`);
      }
      if (typeof res.result !== "string") throw new UpstreamError("sendTransaction: the RPC answered without a signature");
      return res.result;
    },

    async accountsExist(addresses) {
      const out: boolean[] = [];
      for (let i = 0; i < addresses.length; i += 100) {
        const chunk = addresses.slice(i, i + 100).map((a) => new PublicKey(a));
        const infos = await upstream("getMultipleAccounts", () => connection.getMultipleAccountsInfo(chunk, "confirmed"));
        out.push(...infos.map((a) => a !== null));
      }
      return out;
    },

    async signatureStates(signatures) {
      const out: SignatureState[] = [];
      for (let i = 0; i < signatures.length; i += 256) {
        const chunk = signatures.slice(i, i + 256);
        const res = await upstream("getSignatureStatuses", () => connection.getSignatureStatuses(chunk, { searchTransactionHistory: true }));
        for (const s of res.value)
          out.push(s ? { confirmed: s.confirmationStatus === "confirmed" || s.confirmationStatus === "finalized", err: s.err ?? null } : null);
      }
      return out;
    },
  };
}
