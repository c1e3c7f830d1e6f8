/**
 * Live pool state read from the chain: one getMultipleAccounts call brings the pool,
 * (on the curve) its DBC PoolConfig, and the Clock sysvar, all at one context slot, so the
 * quote's fee schedule is evaluated at the slot and time the reserves were read at.
 *
 * Each pool's read is kept for `ttlMs` (2 s: the spec's "cached at most 2 s per pool"), and
 * readers of one pool while its read is in flight share that read (single-flight). A failed
 * read is never kept: the next reader tries again.
 */
import { SYSVAR_CLOCK_PUBKEY } from "@solana/web3.js";
import { cpAmmCoder, type PoolState } from "@meteora-ag/cp-amm-sdk";
import type { PoolConfig, VirtualPool } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { decodePoolConfig, decodeVirtualPool } from "../../ingest/decoders/accounts";
import { sdkPoolConfig, toCamelDeep } from "../../ingest/simulator/dbc";

const CLOCK_SYSVAR = SYSVAR_CLOCK_PUBKEY.toBase58();

/** Reads up to 100 accounts in one call, with the context slot of the read (infra/solana-rpc.ts getAccountsAtSlot). */
export type AccountsAtSlot = (addresses: string[]) => Promise<{ slot: number; accounts: (Uint8Array | null)[] }>;

type Read = { slot: number; unixTimestamp: number; readAtMs: number; pool: string };
export type DbcSnapshot = Read & { venue: "dbc"; state: VirtualPool; config: PoolConfig };
export type DammV2Snapshot = Read & { venue: "damm_v2"; state: PoolState };
export type PoolSnapshot = DbcSnapshot | DammV2Snapshot;

export type PoolTarget = { venue: "dbc"; pool: string; config: string } | { venue: "damm_v2"; pool: string };

/** The chain answered, but not with a pool we can read (missing account, bytes that do not decode). */
export class PoolReadError extends Error {}

export type PoolReader = {
  get(target: PoolTarget): Promise<PoolSnapshot>;
  /** how long a snapshot is kept, in whole seconds (the max-age of an answer made from it) */
  readonly ttlSeconds: number;
  /** whole seconds since a snapshot was read (the Age of an answer made from it) */
  ageSeconds(snapshot: { readAtMs: number }): number;
};

export function createPoolReader(opts: { read: AccountsAtSlot; now?: () => number; ttlMs?: number; maxEntries?: number }): PoolReader {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlMs ?? 2000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const kept = new Map<string, PoolSnapshot>();
  const inFlight = new Map<string, Promise<PoolSnapshot>>();

  async function readPool(target: PoolTarget): Promise<PoolSnapshot> {
    const addresses = target.venue === "dbc" ? [target.pool, target.config, CLOCK_SYSVAR] : [target.pool, CLOCK_SYSVAR];
    const { slot, accounts } = await opts.read(addresses);
    const readAtMs = now();
    const clock = accounts.at(-1);
    const pool = accounts[0];
    if (!pool) throw new PoolReadError(`pool account ${target.pool} not found`);
    if (!clock || clock.length < 40) throw new PoolReadError("clock sysvar missing");
    // Clock: slot, epoch_start_timestamp, epoch, leader_schedule_epoch, unix_timestamp (i64 at 32)
    const unixTimestamp = Number(new DataView(clock.buffer, clock.byteOffset, clock.byteLength).getBigInt64(32, true));
    const read = { slot, unixTimestamp, readAtMs, pool: target.pool };
    try {
      if (target.venue === "damm_v2") return { ...read, venue: "damm_v2", state: decodeDammV2Pool(pool) };
      const config = accounts[1];
      if (!config) throw new PoolReadError(`pool config ${target.config} not found`);
      return {
        ...read,
        venue: "dbc",
        state: toCamelDeep(decodeVirtualPool(pool)) as VirtualPool,
        config: sdkPoolConfig(decodePoolConfig(config)),
      };
    } catch (e) {
      if (e instanceof PoolReadError) throw e;
      throw new PoolReadError(`${target.venue} pool ${target.pool} does not decode: ${(e as Error).message}`);
    }
  }

  return {
    ttlSeconds: Math.floor(ttlMs / 1000),
    ageSeconds: (snapshot) => Math.max(0, Math.floor((now() - snapshot.readAtMs) / 1000)),
    get(target) {
      const key = `${target.venue}:${target.pool}`;
      const hit = kept.get(key);
      if (hit && now() - hit.readAtMs < ttlMs) return Promise.resolve(hit);
      if (hit) kept.delete(key);
      const running = inFlight.get(key);
      if (running) return running;
      const p = readPool(target)
        .then((snapshot) => {
          if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
          kept.set(key, snapshot);
          return snapshot;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
  };
}

/** A DAMM v2 Pool account as the cp-amm SDK's own coder decodes it (its PoolState). */
export function decodeDammV2Pool(bytes: Uint8Array): PoolState {
  return toCamelDeep(cpAmmCoder.accounts.decode("Pool", Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) as PoolState;
}
