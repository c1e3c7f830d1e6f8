/** DBC pool creation: EvtInitializePool carries the pool; its instruction carries name/symbol/uri. */
import type { PoolCreated } from "../contract/facts";
import { asBuffer, DBC } from "./program-coder";
import {
  account,
  DecodeError,
  type EventDecoder,
  eventDecoder,
  factKey,
  requireParent,
  requireSame,
  type Site,
} from "./site";

const CREATE_INSTRUCTIONS = [
  "initialize_virtual_pool_with_spl_token",
  "initialize_virtual_pool_with_token2022",
  "initialize_virtual_pool_with_token2022_transfer_hook",
] as const;

function decodePoolCreated(ev: any, site: Site): void {
  const parent = requireParent(site, CREATE_INSTRUCTIONS);
  const decoded = DBC.coder.instruction.decode(asBuffer(parent.instruction.data));
  const params = (decoded?.data as any)?.params;
  if (!params) throw new DecodeError(`${parent.info.name} arguments do not decode`);
  const pool = ev.pool;
  requireSame("pool", pool, account(parent, "pool"));
  const fact: PoolCreated = {
    ...factKey(site),
    kind: "pool_created",
    pool,
    config: ev.config,
    creator: ev.creator,
    mint: ev.base_mint,
    quoteMint: account(parent, "quote_mint"),
    poolType: ev.pool_type,
    name: params.name,
    symbol: params.symbol,
    uri: params.uri,
    payer: account(parent, "payer"),
  };
  site.out.facts.push(fact);
}

export const poolCreatedDecoders: EventDecoder[] = ["EvtInitializePool", "EvtInitializePoolWithTransferHook"].map(
  (event) => eventDecoder(DBC, event, decodePoolCreated),
);
