/**
 * The signed-in account's reads: /me, the agents its wallet launched, its SOL balance.
 * Agents come out in the Data API's agent shape (public/agents-service.ts), newest first
 * by launch time in the registry of record, paged by an opaque cursor bound to the wallet.
 */
import * as v from "valibot";
import type { Sql } from "../../infra/postgres";
import type { Logger } from "../../infra/log";
import { ApiError } from "../errors";
import { agentsOf, type PublicDeps } from "../public/agents-service";
import { base58Mint, decodeCursor, encodeCursor } from "../public/model";
import type { BalanceReader } from "./wallet";

export type MeDeps = { data: PublicDeps; wallet: BalanceReader | null; log: Logger };

/** Position in a wallet's agents: launch time in microseconds since the epoch, then the mint. */
const POSITION = v.tuple([v.pipe(v.string(), v.regex(/^\d{1,19}$/)), base58Mint]);

/** Agents a wallet launched that the Data API shows (hidden ones are left out everywhere). */
const launchedBy = (sql: Sql, address: string) => sql`creator = ${address} AND NOT hidden`;

export async function account(deps: MeDeps, session: { address: string; expiresAt: Date }) {
  const [row] = await deps.data.sql<{ n: string }[]>`SELECT count(*)::text AS n FROM agents WHERE ${launchedBy(deps.data.sql, session.address)}`;
  return { address: session.address, agents: Number(row!.n), expiresAt: session.expiresAt.toISOString() };
}

export async function myAgents(deps: MeDeps, address: string, q: { limit: number; cursor?: string }) {
  const list = `me-agents:${address}`;
  const after = decodeCursor(list, q.cursor, POSITION);
  const sql = deps.data.sql;
  const rows = await sql<{ mint: string; us: string }[]>`
    SELECT mint, (extract(epoch FROM created_at) * 1000000)::bigint::text AS us FROM agents
    WHERE ${launchedBy(sql, address)}
      ${after ? sql`AND ((extract(epoch FROM created_at) * 1000000)::bigint, mint) < (${after[0]}::bigint, ${after[1]})` : sql``}
    ORDER BY created_at DESC, mint DESC
    LIMIT ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: await agentsOf(deps.data, page.map((r) => r.mint)),
    nextCursor: rows.length > q.limit && last ? encodeCursor(list, [last.us, last.mint]) : null,
  };
}

export async function myWallet(deps: MeDeps, address: string) {
  if (!deps.wallet) throw new ApiError(503, "UPSTREAM_ERROR", "this platform has no Solana RPC configured; wallet balances are unavailable");
  try {
    const { lamports } = await deps.wallet.get(address);
    return { address, lamports: lamports.toString() };
  } catch (err) {
    deps.log.warn("wallet balance read failed", { address, err: err as Error });
    throw new ApiError(502, "UPSTREAM_ERROR", "the chain could not be read right now; retry in a few seconds", undefined, { "retry-after": "2" });
  }
}
