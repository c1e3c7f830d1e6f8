/**
 * Loopback JSON-RPC test double: a Solana RPC on 127.0.0.1 that serves accounts
 * from a map (getMultipleAccounts, getAccountInfo), a ledger of raw transactions
 * (getSignaturesForAddress, getTransaction) and counts calls. Not a cluster: just
 * enough of the protocol for web3.js's Connection and the backfill's client. It can
 * be told to answer HTTP 429 (or a JSON-RPC error) a few times, to test backoff.
 *
 * For launches it also plays a tiny cluster: a settable block height whose blockhash
 * follows it (getLatestBlockhash: lastValidBlockHeight = height + 150; getBlockHeight,
 * getSlot, getEpochInfo, getBlockTime, getBalance, getMinimumBalanceForRentExemption),
 * sendTransaction (base64, as web3.js sends it: every signature verified, an expired
 * blockhash refused, a landed duplicate refused as AlreadyProcessed, raw bytes recorded
 * in `sent`) and getSignatureStatuses, with controls to refuse or fail the next send
 * (also one that lands while its answer is lost or never comes: `failNextSend`), to
 * move the block height and to set what a signature's status is, and to choose how
 * sent transactions land (see `setConfirmMode`).
 *
 * Account reads answer with a context slot (1 unless `setContextSlot` moved it), and the
 * Clock sysvar is served from that slot and `setClockTime` (unless an account was set there).
 * getProgramAccounts (base64, dataSize and base58 memcmp filters, dataSlice, withContext)
 * serves the map's accounts by owner program, e.g. token accounts made with `tokenAccount`;
 * getTokenAccountsByOwner (base64, by programId or mint) the token accounts a wallet owns.
 *
 * With `setLandedEffects`, getTransaction also answers for the transactions it landed (sent,
 * then confirmed or failed): the sent bytes with the effects the test says the programs had
 * (token balances, SOL changes, inner instructions; rpc-double-landing.ts).
 *
 * Blocks (for the contests' seed blocks): every slot up to the current one (`getSlot`, the block
 * height + 100) holds a block unless `skipSlots` skipped it. getBlocks lists the produced slots of
 * a range (none past the current slot), getBlock (transactionDetails "none") answers a produced
 * slot with its blockhash (the one getLatestBlockhash gave at that slot's height, `blockhashOfSlot`)
 * and refuses a skipped slot (-32007) or one not produced yet (-32004), as a real RPC does.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { SYSVAR_CLOCK_PUBKEY, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { NATIVE_MINT as SPL_NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { DYNAMIC_BONDING_CURVE_PROGRAM_ID } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { verifyEd25519 } from "../solana-tx/verify";
import { FIXTURES_URL } from "./fixtures";
import { landedTransactionJson, type LandedEffects, type LandedEffectsOf } from "./rpc-double-landing";

export type FakeAccount = { lamports: number; data: Uint8Array; owner?: string };

const CLOCK_SYSVAR = SYSVAR_CLOCK_PUBKEY.toBase58();
const SYSVAR_PROGRAM = "Sysvar1111111111111111111111111111111111111";

/** The Clock sysvar's 40 bytes: slot, epoch start timestamp, epoch, leader schedule epoch, unix timestamp. */
export function clockSysvar(slot: number, unixTimestamp: number): FakeAccount {
  const data = new Uint8Array(40);
  const view = new DataView(data.buffer);
  view.setBigUint64(0, BigInt(slot), true);
  view.setBigInt64(8, BigInt(unixTimestamp), true);
  view.setBigUint64(16, BigInt(Math.floor(slot / 432_000)), true);
  view.setBigUint64(24, BigInt(Math.floor(slot / 432_000)), true);
  view.setBigInt64(32, BigInt(unixTimestamp), true);
  return { lamports: 1_169_280, data, owner: SYSVAR_PROGRAM };
}

/** The parts of a getTransaction (json encoding) result the double indexes by. */
export type LedgerTransaction = {
  slot: number;
  blockTime: number | null;
  transaction: { signatures: string[]; message: { accountKeys: (string | { pubkey: string })[] } };
  meta: { err: unknown; loadedAddresses?: { writable?: string[]; readonly?: string[] } | null };
};

/** How a sent transaction lands: confirmed, failed on-chain with `err`, or never (stays unknown). */
export type ConfirmMode = "immediate" | "never" | "fail";
/** What getSignatureStatuses reports for a signature: null = unknown to the cluster. */
export type DoubleSignatureStatus = null | "processed" | "confirmed" | "finalized" | { err: unknown; confirmationStatus?: "processed" | "confirmed" | "finalized" };
export type SentTransaction = { signature: string; raw: Uint8Array; blockhash: string; at: number };
type Landing = { mode: ConfirmMode; pollsLeft: number; readyAt: number; err: unknown; slot: number };
type SendFailure = { status: number; landed: boolean; hang: boolean };
type SendRejection = { message: string; logs: string[]; err: unknown };

const DEFAULT_FAIL_ERR = { InstructionError: [0, { Custom: 1 }] };
const blockhashAt = (height: number) => bs58.encode(createHash("sha256").update(`rpc-double-blockhash:${height}`).digest());
/** The double's slot is its block height + 100; a produced slot's block has the blockhash of that height. */
const SLOT_AHEAD_OF_HEIGHT = 100;
export const blockhashOfSlot = (slot: number) => blockhashAt(slot - SLOT_AHEAD_OF_HEIGHT);

// program ids and the native mint from the libraries, never typed by hand
export const DBC_PROGRAM: string = DYNAMIC_BONDING_CURVE_PROGRAM_ID.toBase58();
export const NATIVE_MINT: string = SPL_NATIVE_MINT.toBase58();
const TOKEN_PROGRAM: string = TOKEN_PROGRAM_ID.toBase58();
const TOKEN_2022_PROGRAM: string = TOKEN_2022_PROGRAM_ID.toBase58();

/**
 * What building a launch reads from the chain: each address carries the real mainnet DBC
 * PoolConfig fixture (owned by the DBC program), plus the wrapped-SOL mint (owned by the
 * Token program, an initialized 82-byte mint with 9 decimals). Merge into the double's map.
 */
export function launchFixtureAccounts(configAddresses: string[]): Map<string, FakeAccount> {
  const config = new Uint8Array(readFileSync(new URL("mainnet-accounts/dbc-pool-config.fee-in-both.bin", FIXTURES_URL)));
  const mint = new Uint8Array(82);
  mint[44] = 9; // decimals
  mint[45] = 1; // is_initialized
  const out = new Map<string, FakeAccount>(configAddresses.map((a) => [a, { lamports: 1_000_000_000, data: config, owner: DBC_PROGRAM }]));
  out.set(NATIVE_MINT, { lamports: 1_000_000_000, data: mint, owner: TOKEN_PROGRAM });
  return out;
}

type ProgramAccountsConfig = {
  encoding?: string;
  withContext?: boolean;
  dataSlice?: { offset: number; length: number };
  filters?: ({ dataSize: number } | { memcmp: { offset: number; bytes: string; encoding?: string } })[];
};

/**
 * A token account's 165 bytes as the token programs lay them out: mint, owner, amount (u64
 * LE), then the rest (state initialized). Owned by `program` (SPL Token unless given).
 */
export function tokenAccount(mint: string, owner: string, amount: bigint, program: string = TOKEN_PROGRAM): FakeAccount {
  const data = new Uint8Array(165);
  data.set(bs58.decode(mint), 0);
  data.set(bs58.decode(owner), 32);
  new DataView(data.buffer).setBigUint64(64, amount, true);
  data[108] = 1; // AccountState::Initialized
  return { lamports: 2_039_280, data, owner: program };
}

type Entry = { order: number; signature: string; slot: number; blockTime: number | null; err: unknown; json: string };
type Failure = { status: number; retryAfter?: string; rpcError?: { code: number; message: string } };

export function startRpcTestDouble(accounts: Map<string, FakeAccount> = new Map(), opts: { transactions?: LedgerTransaction[] } = {}) {
  const calls: { method: string; params: unknown[] }[] = [];
  let contextSlot = 1;
  let clockTime = 1_700_000_000;
  const account = (address: string) => accounts.get(address) ?? (address === CLOCK_SYSVAR ? clockSysvar(contextSlot, clockTime) : undefined);
  const encode = (a: FakeAccount | undefined) =>
    a
      ? { lamports: a.lamports, owner: a.owner ?? "11111111111111111111111111111111", executable: false, rentEpoch: 0, space: a.data.length, data: [Buffer.from(a.data).toString("base64"), "base64"] }
      : null;

  // The ledger, in chain order: `order` is the position; each address lists the orders of its transactions.
  const ledger: Entry[] = [];
  const bySignature = new Map<string, Entry>();
  const byAddress = new Map<string, number[]>();
  function addTransactions(list: LedgerTransaction[]) {
    for (const tx of list) {
      const signature = tx.transaction.signatures[0]!;
      if (bySignature.has(signature)) continue;
      const entry: Entry = { order: ledger.length, signature, slot: tx.slot, blockTime: tx.blockTime, err: tx.meta.err, json: JSON.stringify(tx) };
      ledger.push(entry);
      bySignature.set(signature, entry);
      const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === "string" ? k : k.pubkey));
      const loaded = tx.meta.loadedAddresses;
      for (const key of new Set([...keys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])])) {
        let orders = byAddress.get(key);
        if (!orders) byAddress.set(key, (orders = []));
        orders.push(entry.order);
      }
    }
  }
  addTransactions(opts.transactions ?? []);

  /** newest first, strictly older than `before`, stopping at `until` (exclusive), at most `limit` */
  function signaturesFor(address: string, o: { before?: string; until?: string; limit?: number }) {
    const orders = byAddress.get(address) ?? [];
    const beforeOrder = o.before === undefined ? Infinity : bySignature.get(o.before)?.order;
    const untilOrder = o.until === undefined ? -1 : bySignature.get(o.until)?.order ?? -1;
    if (beforeOrder === undefined) return null;
    const out: unknown[] = [];
    const limit = o.limit ?? 1000;
    for (let i = orders.length - 1; i >= 0 && out.length < limit; i--) {
      const e = ledger[orders[i]!]!;
      if (e.order >= beforeOrder) continue;
      if (e.order <= untilOrder) break;
      out.push({ signature: e.signature, slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: "confirmed" });
    }
    return out;
  }

  /** getProgramAccounts: the accounts `program` owns that pass every filter, sliced; a message for what it does not serve */
  function programAccounts(program: string, o: ProgramAccountsConfig): { json: string } | string {
    if (o.encoding !== "base64") return "this test double serves getProgramAccounts only in the base64 encoding";
    const tests: ((data: Uint8Array) => boolean)[] = [];
    for (const f of o.filters ?? []) {
      if ("dataSize" in f) tests.push((d) => d.length === f.dataSize);
      else if ("memcmp" in f) {
        if (f.memcmp.encoding !== undefined && f.memcmp.encoding !== "base58") return "this test double reads memcmp bytes in base58 only";
        const want = bs58.decode(f.memcmp.bytes);
        const at = f.memcmp.offset;
        tests.push((d) => d.length >= at + want.length && want.every((b, i) => d[at + i] === b));
      } else return "unknown filter";
    }
    // JSON text made by hand: a large answer (the holders benchmark's 100,000 accounts) is
    // built several times faster than by JSON.stringify on objects
    const out: string[] = [];
    for (const [pubkey, a] of accounts) {
      if (a.owner !== program || !tests.every((t) => t(a.data))) continue;
      const data = o.dataSlice ? a.data.subarray(o.dataSlice.offset, o.dataSlice.offset + o.dataSlice.length) : a.data;
      const base64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
      out.push(`{"pubkey":"${pubkey}","account":{"lamports":${a.lamports},"owner":"${program}","executable":false,"rentEpoch":0,"space":${a.data.length},"data":["${base64}","base64"]}}`);
    }
    return { json: `[${out.join(",")}]` };
  }

  const failures: Failure[] = [];
  let delayMs = 0;
  const rpcError = (id: unknown, code: number, message: string, data?: unknown) =>
    Response.json({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });

  // --- the tiny cluster for launches ---
  let blockHeight = 1000;
  let pinnedBlockhash: string | null = null;
  const currentBlockhash = () => pinnedBlockhash ?? blockhashAt(blockHeight);
  const slot = () => blockHeight + SLOT_AHEAD_OF_HEIGHT;
  const skipped = new Set<number>();
  /** produced slots of [from, to], none past the current slot */
  const producedSlots = (from: number, to: number) => {
    const out: number[] = [];
    for (let s = Math.max(0, from); s <= Math.min(to, slot()); s++) if (!skipped.has(s)) out.push(s);
    return out;
  };
  function getBlock(id: unknown, params: any[]): Response {
    const at = Number(params[0]);
    const o = (params[1] ?? {}) as { transactionDetails?: string };
    if (o.transactionDetails !== "none") return rpcError(id, -32602, "this test double serves getBlock with transactionDetails none only");
    if (at > slot()) return rpcError(id, -32004, `Block not available for slot ${at}`);
    if (skipped.has(at)) return rpcError(id, -32007, `Slot ${at} was skipped, or missing due to ledger jump to recent snapshot`);
    const parentSlot = producedSlots(0, at - 1).at(-1) ?? 0;
    const result = { blockhash: blockhashOfSlot(at), previousBlockhash: blockhashOfSlot(parentSlot), parentSlot, blockTime: Math.floor(Date.now() / 1000), blockHeight: at - SLOT_AHEAD_OF_HEIGHT };
    return Response.json({ jsonrpc: "2.0", id, result });
  }
  /** blockhash -> last block height at which a transaction using it can land */
  const issued = new Map<string, number>();
  const sent: SentTransaction[] = [];
  const landings = new Map<string, Landing>();
  const explicit = new Map<string, DoubleSignatureStatus>();
  let confirm: { mode: ConfirmMode; afterPolls: number; afterMs: number; err: unknown } = { mode: "immediate", afterPolls: 0, afterMs: 0, err: DEFAULT_FAIL_ERR };
  const sendFailures: SendFailure[] = [];
  let effectsOf: LandedEffectsOf | null = null;
  /** sent transactions whose getTransaction the double can answer once they land */
  const landedTxs = new Map<string, { tx: VersionedTransaction; effects: LandedEffects | null }>();
  const sendRejections: SendRejection[] = [];

  const simulationFailed = (id: unknown, r: SendRejection) =>
    rpcError(id, -32002, r.message, { accounts: null, err: r.err, innerInstructions: null, logs: r.logs, replacementBlockhash: null, returnData: null, unitsConsumed: 0 });

  function statusOf(signature: string): unknown {
    const status = (confirmationStatus: string, err: unknown, at = slot()) => ({
      slot: at,
      confirmations: confirmationStatus === "finalized" ? null : 0,
      err,
      status: err === null ? { Ok: null } : { Err: err },
      confirmationStatus,
    });
    if (explicit.has(signature)) {
      const s = explicit.get(signature)!;
      if (s === null) return null;
      if (typeof s === "string") return status(s, null);
      return status(s.confirmationStatus ?? "confirmed", s.err);
    }
    const landing = landings.get(signature);
    if (landing) {
      if (landing.mode === "never") return null;
      if (landing.pollsLeft > 0 || Date.now() < landing.readyAt) {
        if (landing.pollsLeft > 0) landing.pollsLeft--;
        return status("processed", null, landing.slot);
      }
      return status("confirmed", landing.mode === "fail" ? landing.err : null, landing.slot);
    }
    const entry = bySignature.get(signature);
    return entry ? status("finalized", entry.err, entry.slot) : null;
  }
  /** true when the transaction has landed (a duplicate send is then refused as AlreadyProcessed) */
  function landed(signature: string): boolean {
    if (explicit.has(signature)) {
      const s = explicit.get(signature);
      return s !== null && s !== "processed";
    }
    const l = landings.get(signature);
    if (l) return l.mode !== "never" && l.pollsLeft === 0 && Date.now() >= l.readyAt;
    return bySignature.has(signature);
  }

  async function sendTransaction(id: unknown, params: any[], signal: AbortSignal): Promise<Response> {
    const o = (params[1] ?? {}) as { encoding?: string; skipPreflight?: boolean };
    if (o.encoding !== "base64") return rpcError(id, -32602, "this test double accepts only base64-encoded transactions");
    let tx: VersionedTransaction;
    const raw = new Uint8Array(Buffer.from(String(params[0]), "base64"));
    try {
      tx = VersionedTransaction.deserialize(raw);
    } catch (e) {
      return rpcError(id, -32602, `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
    }
    const signature = bs58.encode(tx.signatures[0]!);
    const failure = sendFailures.shift();
    if (failure) {
      if (failure.landed) accept();
      // a send that times out: no answer until the client gives up (or 30 s)
      if (failure.hang) await new Promise<void>((resolve) => {
        const cap = setTimeout(resolve, 30_000);
        signal.addEventListener("abort", () => (clearTimeout(cap), resolve()), { once: true });
      });
      return Response.json({ jsonrpc: "2.0", id, error: { code: failure.status, message: `HTTP ${failure.status} from the test double` } }, { status: failure.status });
    }
    const message = tx.message.serialize();
    const keys = tx.message.staticAccountKeys;
    for (let i = 0; i < tx.message.header.numRequiredSignatures; i++)
      if (!verifyEd25519(keys[i]!.toBytes(), message, tx.signatures[i]!)) return rpcError(id, -32003, "Transaction signature verification failure");
    const rejection = sendRejections.shift();
    if (rejection) return simulationFailed(id, rejection);
    const lastValid = issued.get(tx.message.recentBlockhash);
    if (lastValid !== undefined && blockHeight > lastValid && !landed(signature))
      return simulationFailed(id, { message: "Transaction simulation failed: Blockhash not found", logs: [], err: "BlockhashNotFound" });
    if (landed(signature)) return simulationFailed(id, { message: "Transaction simulation failed: This transaction has already been processed", logs: [], err: "AlreadyProcessed" });
    accept();
    return Response.json({ jsonrpc: "2.0", id, result: signature });

    function accept() {
      sent.push({ signature, raw, blockhash: tx.message.recentBlockhash, at: Date.now() });
      if (effectsOf && !landedTxs.has(signature)) landedTxs.set(signature, { tx, effects: effectsOf(tx) });
      if (!landings.has(signature))
        landings.set(signature, { mode: confirm.mode, pollsLeft: confirm.afterPolls, readyAt: Date.now() + confirm.afterMs, err: confirm.err, slot: slot() });
    }
  }

  /** getTransaction of a transaction this double landed: null while it has not landed (or never will) */
  function landedJson(signature: string): unknown {
    const t = landedTxs.get(signature);
    if (!t) return undefined;
    if (!landed(signature)) return null;
    const s = statusOf(signature) as { slot: number; err: unknown } | null;
    if (!s) return null;
    return landedTransactionJson(t.tx, t.effects, s.slot, Math.floor(Date.now() / 1000), s.err);
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { id: number; method: string; params: any[] };
      calls.push({ method: body.method, params: body.params });
      if (delayMs) await Bun.sleep(delayMs);
      const failure = failures.shift();
      if (failure) {
        if (failure.rpcError) return rpcError(body.id, failure.rpcError.code, failure.rpcError.message);
        const headers: Record<string, string> = failure.retryAfter === undefined ? {} : { "retry-after": failure.retryAfter };
        return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: failure.status, message: "Too many requests for a specific RPC call" } }, { status: failure.status, headers });
      }
      const ctx = { context: { slot: contextSlot, apiVersion: "2.0.0" } };
      let result: unknown;
      if (body.method === "getMultipleAccounts") result = { ...ctx, value: (body.params[0] as string[]).map((k) => encode(account(k))) };
      else if (body.method === "getAccountInfo") result = { ...ctx, value: encode(account(body.params[0])) };
      else if (body.method === "getBalance") result = { ...ctx, value: accounts.get(body.params[0])?.lamports ?? 0 };
      else if (body.method === "getLatestBlockhash") {
        const blockhash = currentBlockhash();
        const lastValidBlockHeight = blockHeight + 150;
        if (!issued.has(blockhash)) issued.set(blockhash, lastValidBlockHeight);
        result = { context: { slot: slot(), apiVersion: "2.0.0" }, value: { blockhash, lastValidBlockHeight } };
      } else if (body.method === "getBlockHeight") result = blockHeight;
      else if (body.method === "getSlot") result = slot();
      else if (body.method === "getBlockTime") result = Math.floor(Date.now() / 1000);
      else if (body.method === "getEpochInfo")
        result = { absoluteSlot: slot(), blockHeight, epoch: Math.floor(slot() / 432_000), slotIndex: slot() % 432_000, slotsInEpoch: 432_000, transactionCount: null };
      else if (body.method === "getMinimumBalanceForRentExemption") result = (128 + Number(body.params[0] ?? 0)) * 3480 * 2;
      else if (body.method === "sendTransaction") return sendTransaction(body.id, body.params, req.signal);
      else if (body.method === "getBlock") return getBlock(body.id, body.params);
      else if (body.method === "getBlocks") {
        const [from, to] = [Number(body.params[0]), typeof body.params[1] === "number" ? body.params[1] : slot()];
        if (to - from > 500_000) return rpcError(body.id, -32602, "Slot range too large; max 500000");
        result = producedSlots(from, to);
      }
      else if (body.method === "getSignatureStatuses") result = { context: { slot: slot(), apiVersion: "2.0.0" }, value: (body.params[0] as string[]).map(statusOf) };
      else if (body.method === "getSignaturesForAddress") {
        const o = (body.params[1] ?? {}) as { before?: string; until?: string; limit?: number };
        if (o.limit !== undefined && (o.limit < 1 || o.limit > 1000)) return rpcError(body.id, -32602, "Invalid limit; max 1000");
        result = signaturesFor(body.params[0], o);
        if (result === null) return rpcError(body.id, -32602, "Invalid param: before signature not found");
      } else if (body.method === "getTransaction") {
        const o = (body.params[1] ?? {}) as { encoding?: string; maxSupportedTransactionVersion?: number };
        if (o.encoding !== "json") return rpcError(body.id, -32602, "this test double serves only the json encoding");
        if (o.maxSupportedTransactionVersion !== 0) return rpcError(body.id, -32015, "Transaction version (0) is not supported by the requesting client");
        const e = bySignature.get(body.params[0]);
        const own = e ? undefined : landedJson(String(body.params[0]));
        if (own !== undefined) return Response.json({ jsonrpc: "2.0", id: body.id, result: own });
        // the stored JSON goes out as is: serializing 20k transactions per test run would dominate a benchmark
        const text = `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${e ? e.json : "null"}}`;
        return new Response(text, { headers: { "content-type": "application/json" } });
      } else if (body.method === "getTokenAccountsByOwner") {
        // the map's token accounts (owned by a token program) whose owner field is the wallet, by program or mint
        const [owner, filter, o] = body.params as [string, { programId?: string; mint?: string }, { encoding?: string } | undefined];
        if ((o?.encoding ?? "base64") !== "base64") return rpcError(body.id, -32602, "this test double serves getTokenAccountsByOwner only in the base64 encoding");
        const ownerBytes = bs58.decode(owner);
        const value = [...accounts]
          .filter(([, a]) => (filter.programId ? a.owner === filter.programId : a.owner === TOKEN_PROGRAM || a.owner === TOKEN_2022_PROGRAM))
          .filter(([, a]) => a.data.length >= 72 && ownerBytes.every((b, i) => a.data[32 + i] === b))
          .filter(([, a]) => !filter.mint || bs58.encode(a.data.subarray(0, 32)) === filter.mint)
          .map(([pubkey, a]) => ({ pubkey, account: encode(a) }));
        result = { ...ctx, value };
      } else if (body.method === "getProgramAccounts") {
        const found = programAccounts(String(body.params[0]), (body.params[1] ?? {}) as ProgramAccountsConfig);
        if (typeof found === "string") return rpcError(body.id, -32602, found);
        const value = (body.params[1] as ProgramAccountsConfig | undefined)?.withContext ? `{"context":${JSON.stringify(ctx.context)},"value":${found.json}}` : found.json;
        return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${value}}`, { headers: { "content-type": "application/json" } });
      } else return rpcError(body.id, -32601, `test double has no ${body.method}`);
      return Response.json({ jsonrpc: "2.0", id: body.id, result });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    stop: () => server.stop(true),
    addTransactions,
    /** the next `times` requests fail with HTTP `status` (429 by default) or with `rpcError` */
    failNext(times: number, failure: Partial<Failure> = {}) {
      for (let i = 0; i < times; i++) failures.push({ status: failure.status ?? 429, retryAfter: failure.retryAfter, rpcError: failure.rpcError });
    },
    /** serves `account` at `address` from now on (undefined: none), e.g. a mint a transaction created */
    setAccount(address: string, account: FakeAccount | undefined) {
      if (account) accounts.set(address, account);
      else accounts.delete(address);
    },
    /** the context slot account reads answer with (and the Clock sysvar's slot) */
    setContextSlot(slot: number) {
      contextSlot = slot;
    },
    /** the Clock sysvar's unix timestamp (seconds) */
    setClockTime(unixSeconds: number) {
      clockTime = unixSeconds;
    },
    /** forgets the failures failNext queued and nobody has met yet */
    clearFailures() {
      failures.length = 0;
    },
    /** every answer waits this long (to hold a run open in concurrency tests) */
    setDelay(ms: number) {
      delayMs = ms;
    },

    // --- launches: blocks, sends, statuses ---
    /** every accepted sendTransaction, in order (duplicates included), with its raw bytes */
    sent,
    blockHeight: () => blockHeight,
    /** the current blockhash (what getLatestBlockhash answers next) */
    blockhash: () => currentBlockhash(),
    /** moves the chain: the blockhash follows the height (and un-pins one set with setBlockhash) */
    setBlockHeight(n: number) {
      if (n !== blockHeight) pinnedBlockhash = null;
      blockHeight = n;
    },
    /** the current slot (what getSlot answers): the block height + 100 */
    slot: () => slot(),
    /** these slots produce no block (getBlocks leaves them out, getBlock refuses them) */
    skipSlots(...slots: number[]) {
      for (const s of slots) skipped.add(s);
    },
    /** pins the blockhash getLatestBlockhash answers, until the next setBlockHeight */
    setBlockhash(blockhash: string) {
      pinnedBlockhash = blockhash;
    },
    /** the next sendTransaction is refused in preflight (JSON-RPC -32002 with data.logs), like a real RPC */
    rejectNextSend(logs: string[] = [], opts: { message?: string; err?: unknown } = {}) {
      sendRejections.push({
        message: opts.message ?? "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.",
        logs,
        err: opts.err ?? "AccountNotFound",
      });
    },
    /**
     * The next sendTransaction answers HTTP `status`; with `landed` the transaction still goes through (a lost
     * answer); with `hang` no answer comes until the client gives up (a send that times out).
     */
    failNextSend(status = 502, opts: { landed?: boolean; hang?: boolean } = {}) {
      sendFailures.push({ status, landed: opts.landed ?? false, hang: opts.hang ?? false });
    },
    /**
     * How transactions sent from now on land: "immediate" (default) confirmed, "fail" confirmed with
     * `err` (an InstructionError by default), "never" unknown forever (dropped). Until it lands, a
     * transaction answers "processed": for its first `afterPolls` status polls and `afterMs` after its send.
     */
    setConfirmMode(mode: ConfirmMode, opts: { afterPolls?: number; afterMs?: number; err?: unknown } = {}) {
      confirm = { mode, afterPolls: opts.afterPolls ?? 0, afterMs: opts.afterMs ?? 0, err: opts.err ?? DEFAULT_FAIL_ERR };
    },
    /**
     * Decides what each transaction sent from now on did, for getTransaction once it lands
     * (null: stop; transactions sent before keep theirs). Called once per transaction, at its send.
     */
    setLandedEffects(fn: LandedEffectsOf | null) {
      effectsOf = fn;
    },
    /** overrides what getSignatureStatuses reports for one signature (null = unknown); `undefined` removes the override */
    setSignatureStatus(signature: string, status: DoubleSignatureStatus | undefined) {
      if (status === undefined) explicit.delete(signature);
      else explicit.set(signature, status);
    },
  };
}
