/**
 * Helius webhook elements (enhanced or raw) and RPC getTransaction results (json
 * encoding) into ChainTransaction. Input comes from the network: everything is checked,
 * and anything malformed is reported as a reason instead of thrown.
 */
import type { ChainTransaction, Instruction, OuterInstruction, TokenBalanceDelta } from "./transaction";
import { isBase58 } from "./decoders/base58";
import { Base58Instruction, Base58OuterInstruction } from "./base58-instruction";

export type NormalizeResult = { ok: true; tx: ChainTransaction } | { ok: false; reason: string };

/** Thrown only inside this module; the exported functions turn it into `ok: false`. */
class Malformed extends Error {}

function fail(reason: string): never {
  throw new Malformed(reason);
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown, what: string): string {
  if (typeof v !== "string" || v.length === 0) fail(`${what}: expected a non-empty string`);
  return v;
}

function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) fail(`${what}: expected an array`);
  return v;
}

function uint(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) fail(`${what}: expected a non-negative integer`);
  return v;
}

/** unix seconds; null/undefined means the source did not say */
function time(v: unknown, what: string): number {
  return v === null || v === undefined ? 0 : uint(v, what);
}

/** Addresses are base58 of 32 bytes: 32 to 44 characters. Full decoding is left to consumers. */
function isAddress(v: unknown): v is string {
  return typeof v === "string" && v.length >= 32 && v.length <= 44;
}

function address(v: unknown, what: string): string {
  if (!isAddress(v)) fail(`${what}: expected a base58 address`);
  return v;
}

// The checks that run for every instruction and account take the instruction's path and
// build the field's path (".data", ".accounts[3]") only on failure: building those strings
// up front for every account took half of the time normalizing spent outside base58.

/** The data's base58 text, checked: decoded only when a decoder reads it (base58-instruction.ts). */
function instructionData(v: unknown, ixWhat: string): string {
  if (typeof v !== "string") fail(`${ixWhat}.data: expected base58 data`);
  if (!isBase58(v)) fail(`${ixWhat}.data: data is not base58`);
  return v;
}

/** Both sources always carry the error field (null on success); its absence means a mangled payload. */
function failure(o: Obj, field: string, what: string): boolean {
  if (!(field in o)) fail(`${what}: missing`);
  return o[field] !== null;
}

/** A decimal integer string (token amounts are strings: u64 does not fit a JSON number). */
function atoms(v: unknown, what: string, signed: boolean): bigint {
  if (typeof v !== "string" || !(signed ? /^-?[0-9]{1,20}$/ : /^[0-9]{1,20}$/).test(v)) fail(`${what}: expected an integer string`);
  return BigInt(v);
}

function lamports(v: unknown, what: string): bigint {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) fail(`${what}: expected an integer`);
  return BigInt(v);
}

function decimals(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 255) fail(`${what}: expected decimals 0-255`);
  return v;
}

/** `v`, or [] when the source left the field out (older payloads and test doubles do) */
function optionalList(v: unknown, what: string): unknown[] {
  return v === undefined || v === null ? [] : arr(v, what);
}

function fee(v: unknown, what: string): number {
  return v === undefined || v === null ? 0 : uint(v, what);
}

function wrap(build: () => ChainTransaction): NormalizeResult {
  try {
    return { ok: true, tx: build() };
  } catch (e) {
    if (e instanceof Malformed) return { ok: false, reason: e.message };
    return { ok: false, reason: `unexpected: ${e instanceof Error ? e.message : String(e)}` };
  }
}

// ---- enhanced: instructions carry addresses and base58 data directly ----

/** The accounts of an enhanced instruction, checked in place (the array is used as is). */
function enhancedAccounts(ix: Obj, what: string): string[] {
  const accounts = ix.accounts;
  if (!Array.isArray(accounts)) fail(`${what}.accounts: expected an array`);
  for (let i = 0; i < accounts.length; i++)
    if (!isAddress(accounts[i])) fail(`${what}.accounts[${i}]: expected a base58 address`);
  return accounts;
}

function enhancedProgramId(ix: Obj, what: string): string {
  if (!isAddress(ix.programId)) fail(`${what}.programId: expected a base58 address`);
  return ix.programId;
}

function enhancedInstruction(v: unknown, what: string): Instruction {
  if (!isObj(v)) fail(`${what}: expected an object`);
  const accounts = enhancedAccounts(v, what);
  return new Base58Instruction(enhancedProgramId(v, what), accounts, instructionData(v.data, what));
}

function enhancedOuter(v: unknown, what: string): OuterInstruction {
  if (!isObj(v)) fail(`${what}: expected an object`);
  const accounts = enhancedAccounts(v, what);
  const programId = enhancedProgramId(v, what);
  const data = instructionData(v.data, what);
  const innerRaw = v.innerInstructions;
  const innerList = innerRaw === undefined || innerRaw === null ? [] : arr(innerRaw, `${what}.innerInstructions`);
  const inner = new Array<Instruction>(innerList.length);
  for (let j = 0; j < innerList.length; j++)
    inner[j] = enhancedInstruction(innerList[j], `${what}.innerInstructions[${j}]`);
  return new Base58OuterInstruction(programId, accounts, data, inner);
}

/**
 * Token balance changes in one order whatever the source (by token account address): a
 * change's position is its fact key, so the webhook's enhanced form and RPC's raw form of
 * one transaction (which list accounts in different orders) give the same keys.
 */
function canonical(list: TokenBalanceDelta[]): TokenBalanceDelta[] {
  return list.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}

/** accountData[]: each account's nativeBalanceChange and its tokenBalanceChanges (deltas, signed) */
function enhancedBalances(e: Obj): Pick<ChainTransaction, "tokenBalances" | "nativeBalances"> {
  const tokenBalances: TokenBalanceDelta[] = [];
  const nativeBalances: ChainTransaction["nativeBalances"] = [];
  const list = optionalList(e.accountData, "accountData");
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    const what = `accountData[${i}]`;
    if (!isObj(a)) fail(`${what}: expected an object`);
    const account = address(a.account, `${what}.account`);
    const native = a.nativeBalanceChange === undefined ? 0n : lamports(a.nativeBalanceChange, `${what}.nativeBalanceChange`);
    if (native !== 0n) nativeBalances.push({ account, delta: native });
    const changes = optionalList(a.tokenBalanceChanges, `${what}.tokenBalanceChanges`);
    for (let j = 0; j < changes.length; j++) {
      const c = changes[j];
      const cw = `${what}.tokenBalanceChanges[${j}]`;
      if (!isObj(c)) fail(`${cw}: expected an object`);
      if (!isObj(c.rawTokenAmount)) fail(`${cw}.rawTokenAmount: expected an object`);
      const delta = atoms(c.rawTokenAmount.tokenAmount, `${cw}.rawTokenAmount.tokenAmount`, true);
      if (delta === 0n) continue;
      tokenBalances.push({
        account: address(c.tokenAccount, `${cw}.tokenAccount`),
        mint: address(c.mint, `${cw}.mint`),
        owner: address(c.userAccount, `${cw}.userAccount`),
        delta,
        decimals: decimals(c.rawTokenAmount.decimals, `${cw}.rawTokenAmount.decimals`),
      });
    }
  }
  return { tokenBalances: canonical(tokenBalances), nativeBalances };
}

function enhanced(e: Obj): ChainTransaction {
  const ixs = arr(e.instructions, "instructions");
  const instructions: OuterInstruction[] = new Array(ixs.length);
  for (let i = 0; i < ixs.length; i++) instructions[i] = enhancedOuter(ixs[i], `instructions[${i}]`);
  return {
    ...enhancedBalances(e),
    fee: fee(e.fee, "fee"),
    signature: str(e.signature, "signature"),
    slot: uint(e.slot, "slot"),
    blockTime: time(e.timestamp, "timestamp"),
    feePayer: address(e.feePayer, "feePayer"),
    failed: failure(e, "transactionError", "transactionError"),
    instructions,
  };
}

// ---- raw / RPC: instructions refer to account keys by index ----

function accountKeys(message: Obj, meta: Obj): string[] {
  const keys = arr(message.accountKeys, "transaction.message.accountKeys").map((k, i) => {
    const key = isObj(k) ? k.pubkey : k;
    if (!isAddress(key)) fail(`accountKeys[${i}]: expected a base58 address`);
    return key;
  });
  // v0 transactions: the keys loaded from lookup tables follow, writable first
  const loaded = meta.loadedAddresses;
  if (loaded !== undefined && loaded !== null) {
    if (!isObj(loaded)) fail("meta.loadedAddresses: expected an object");
    for (const part of ["writable", "readonly"] as const) {
      const list = loaded[part] === undefined ? [] : arr(loaded[part], `meta.loadedAddresses.${part}`);
      for (let i = 0; i < list.length; i++) {
        const key = list[i];
        if (!isAddress(key)) fail(`meta.loadedAddresses.${part}[${i}]: expected a base58 address`);
        keys.push(key);
      }
    }
  }
  return keys;
}

/** The key at index `v`, or undefined when `v` is not a valid index. */
function keyAt(keys: string[], v: unknown): string | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v < keys.length ? keys[v] : undefined;
}

function rawInstruction(keys: string[], v: unknown, what: string): Base58Instruction {
  if (!isObj(v)) fail(`${what}: expected an object`);
  if (Array.isArray(v.accounts) === false || typeof v.data !== "string")
    fail(`${what}: expected {programIdIndex, accounts, data} (json encoding, not jsonParsed)`);
  const idx = v.accounts as unknown[];
  const accounts = new Array<string>(idx.length);
  for (let i = 0; i < idx.length; i++) {
    const key = keyAt(keys, idx[i]);
    if (key === undefined) fail(`${what}.accounts[${i}]: account index out of range`);
    accounts[i] = key;
  }
  const programId = keyAt(keys, v.programIdIndex);
  if (programId === undefined) fail(`${what}.programIdIndex: account index out of range`);
  return new Base58Instruction(programId, accounts, instructionData(v.data, what));
}

type RawTokenBalance = { account: string; mint: string; owner: string; amount: bigint; decimals: number };

function rawTokenBalances(keys: string[], v: unknown, what: string): Map<number, RawTokenBalance> {
  const out = new Map<number, RawTokenBalance>();
  const list = optionalList(v, what);
  for (let i = 0; i < list.length; i++) {
    const b = list[i];
    const bw = `${what}[${i}]`;
    if (!isObj(b)) fail(`${bw}: expected an object`);
    const index = uint(b.accountIndex, `${bw}.accountIndex`);
    const account = keyAt(keys, index);
    if (account === undefined) fail(`${bw}.accountIndex: account index out of range`);
    if (!isObj(b.uiTokenAmount)) fail(`${bw}.uiTokenAmount: expected an object`);
    out.set(index, {
      account,
      mint: address(b.mint, `${bw}.mint`),
      // owner is absent in responses of very old RPC versions; an empty owner is never a holder
      owner: b.owner === undefined ? "" : address(b.owner, `${bw}.owner`),
      amount: atoms(b.uiTokenAmount.amount, `${bw}.uiTokenAmount.amount`, false),
      decimals: decimals(b.uiTokenAmount.decimals, `${bw}.uiTokenAmount.decimals`),
    });
  }
  return out;
}

/** meta's pre/post balances as deltas, in account-index order */
function rawBalances(keys: string[], meta: Obj): Pick<ChainTransaction, "tokenBalances" | "nativeBalances"> {
  const pre = rawTokenBalances(keys, meta.preTokenBalances, "meta.preTokenBalances");
  const post = rawTokenBalances(keys, meta.postTokenBalances, "meta.postTokenBalances");
  const tokenBalances: TokenBalanceDelta[] = [];
  for (const index of [...new Set([...pre.keys(), ...post.keys()])].sort((a, b) => a - b)) {
    const before = pre.get(index);
    const after = post.get(index);
    const seen = (after ?? before)!;
    const delta = (after?.amount ?? 0n) - (before?.amount ?? 0n);
    if (delta !== 0n) tokenBalances.push({ account: seen.account, mint: seen.mint, owner: after?.owner || before?.owner || "", delta, decimals: seen.decimals });
  }
  canonical(tokenBalances);
  const nativeBalances: ChainTransaction["nativeBalances"] = [];
  const preSol = optionalList(meta.preBalances, "meta.preBalances");
  const postSol = optionalList(meta.postBalances, "meta.postBalances");
  if (preSol.length && postSol.length) {
    if (preSol.length !== postSol.length) fail("meta.preBalances: length differs from meta.postBalances");
    for (let i = 0; i < preSol.length && i < keys.length; i++) {
      const delta = lamports(postSol[i], `meta.postBalances[${i}]`) - lamports(preSol[i], `meta.preBalances[${i}]`);
      if (delta !== 0n) nativeBalances.push({ account: keys[i]!, delta });
    }
  }
  return { tokenBalances, nativeBalances };
}

function raw(r: Obj): ChainTransaction {
  if (!isObj(r.transaction)) fail("transaction: expected an object (json encoding, not base64)");
  if (!isObj(r.meta)) fail("meta: expected an object");
  const meta = r.meta;
  const message = r.transaction.message;
  if (!isObj(message)) fail("transaction.message: expected an object");
  const signatures = arr(r.transaction.signatures, "transaction.signatures");
  const keys = accountKeys(message, meta);
  if (keys.length === 0) fail("accountKeys: empty");

  const outer = arr(message.instructions, "transaction.message.instructions");
  const instructions: OuterInstruction[] = outer.map((ix, i) => {
    const r = rawInstruction(keys, ix, `instructions[${i}]`);
    return new Base58OuterInstruction(r.programId, r.accounts, r.base58!, []);
  });
  const innerGroups =
    meta.innerInstructions === undefined || meta.innerInstructions === null
      ? []
      : arr(meta.innerInstructions, "meta.innerInstructions");
  for (let g = 0; g < innerGroups.length; g++) {
    const group = innerGroups[g];
    const what = `meta.innerInstructions[${g}]`;
    if (!isObj(group)) fail(`${what}: expected an object`);
    const index = uint(group.index, `${what}.index`);
    if (index >= instructions.length) fail(`${what}.index: no such outer instruction`);
    const list = arr(group.instructions, `${what}.instructions`);
    const target = instructions[index]!.inner;
    for (let j = 0; j < list.length; j++) target.push(rawInstruction(keys, list[j], `${what}.instructions[${j}]`));
  }
  return {
    signature: str(signatures[0], "transaction.signatures[0]"),
    slot: uint(r.slot, "slot"),
    blockTime: time(r.blockTime, "blockTime"),
    feePayer: keys[0]!,
    failed: failure(meta, "err", "meta.err"),
    instructions,
    fee: fee(meta.fee, "meta.fee"),
    ...rawBalances(keys, meta),
  };
}

/** One element of a Helius webhook array, enhanced or raw. */
export function normalizeWebhookTransaction(element: unknown): NormalizeResult {
  if (!isObj(element)) return { ok: false, reason: "expected an object" };
  if ("transaction" in element || "meta" in element) return wrap(() => raw(element));
  if ("instructions" in element || "signature" in element) return wrap(() => enhanced(element));
  return {
    ok: false,
    reason: "neither an enhanced (signature, instructions) nor a raw (meta, transaction) transaction",
  };
}

/** The result of RPC getTransaction with `encoding: "json"`: the raw shape. */
export function normalizeRpcTransaction(result: unknown): NormalizeResult {
  if (!isObj(result)) return { ok: false, reason: "expected an object" };
  return wrap(() => raw(result));
}
