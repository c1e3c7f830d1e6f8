/**
 * migration_damm_v2 emits no DBC event: the instruction itself is the fact. The DAMM v2
 * pool's starting price comes from cp-amm's EvtInitializePool, emitted further down the
 * same inner list by the CPI that creates the pool.
 */
import type { Migration } from "../contract/facts";
import { discriminatorHex, isEventCpi } from "./event-cpi";
import { DAMM_V2, DBC, decodeEventBody } from "./program-coder";
import { account, DecodeError, errorMessage, factKey, type InstructionDecoder, type Site } from "./site";

const DAMM_INIT_POOL = "EvtInitializePool";
const DAMM_INIT_POOL_DISCRIMINATOR = [...DAMM_V2.eventByDiscriminator].find(([, n]) => n === DAMM_INIT_POOL)![0];

/** sqrt_price of the DAMM v2 pool's EvtInitializePool later in the same inner list, else 0. */
function initialSqrtPrice(site: Site, dammPool: string): bigint {
  const inner = site.outer.inner;
  for (let j = site.inner + 1; j < inner.length; j++) {
    const ins = inner[j]!;
    if (ins.programId !== DAMM_V2.programId || !isEventCpi(ins.data)) continue;
    if (discriminatorHex(ins.data, 8) !== DAMM_INIT_POOL_DISCRIMINATOR) continue;
    try {
      const ev = decodeEventBody(DAMM_V2, DAMM_INIT_POOL, ins.data);
      if (ev.pool === dammPool) return ev.sqrt_price;
    } catch (e) {
      // a bad price event should not cost the migration itself
      site.out.errors.push({ ix: site.ix, inner: j, message: `${DAMM_INIT_POOL}: ${errorMessage(e)}` });
    }
  }
  return 0n;
}

function decodeMigration(site: Site): void {
  const parent = site.parent;
  if (parent === null) throw new DecodeError("instruction missing");
  const dammPool = account(parent, "pool");
  const fact: Migration = {
    ...factKey(site),
    kind: "migration",
    pool: account(parent, "virtual_pool"),
    config: account(parent, "config"),
    mint: account(parent, "base_mint"),
    quoteMint: account(parent, "quote_mint"),
    dammPool,
    sqrtPrice: initialSqrtPrice(site, dammPool),
  };
  site.out.facts.push(fact);
}

export const migrationDecoder: InstructionDecoder = {
  program: DBC,
  instruction: "migration_damm_v2",
  decode: decodeMigration,
};
