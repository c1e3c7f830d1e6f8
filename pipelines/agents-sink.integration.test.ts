import { expect, test } from "bun:test";
import { testEngines } from "../infra/testing/engines";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
import { createSimulator, fixtureSimConfigs } from "../ingest/simulator";
import { toEnvelopes } from "../ingest/helius/handle";
import type { PoolCreated } from "../ingest/contract/facts";
import { mirrorDirectory, refreshDirectory, upsertAgentsForPools } from "./agents-sink";

/** The configs of a seed and the first pool its simulator creates. */
function simulatedPool(seed: number) {
  const configs = simulatedConfigRegistry(fixtureSimConfigs(seed));
  const first = toEnvelopes(createSimulator({ seed, configs: fixtureSimConfigs(seed), pools: 1 }).next(1), "simulator")[0]!;
  return { configs, pool: first.facts.find((f): f is PoolCreated => f.kind === "pool_created")! };
}

test("a directory row mirrored late (another process, an older snapshot) never replaces a newer one", async () => {
  const { sql, ch } = await testEngines();
  const { configs, pool } = simulatedPool(83);
  // process A creates the agent and keeps its row to mirror it
  const [older] = await upsertAgentsForPools(sql, [pool]);
  // process B changes the agent and mirrors the newer row first
  await sql`UPDATE agents SET hidden = true WHERE mint = ${pool.mint}`;
  await refreshDirectory(sql, ch, configs, [pool.mint]);
  // then A's mirror lands
  await mirrorDirectory(ch, configs, [older!]);
  const [row] = await ch.query<{ hidden: number }>("SELECT argMax(hidden, version) AS hidden FROM agent_directory WHERE mint = {m:String}", { m: pool.mint });
  expect(Number(row!.hidden)).toBe(1);
});

test("the directory carries each agent's creator and vault (payouts from the treasury are told apart by them)", async () => {
  const { sql, ch } = await testEngines();
  const { configs, pool } = simulatedPool(84);
  const agents = await upsertAgentsForPools(sql, [pool]);
  await mirrorDirectory(ch, configs, agents);
  const read = async () =>
    (await ch.query<{ creator: string; vault: string }>("SELECT argMax(creator, version) AS creator, argMax(vault, version) AS vault FROM agent_directory WHERE mint = {m:String}", { m: pool.mint }))[0]!;
  // a chain-created agent: the fee payer launched it, the pool creator is its vault
  expect(await read()).toEqual({ creator: pool.payer || pool.creator, vault: pool.creator });
  // a launch through the Launch API names another vault: the refreshed mirror follows Postgres
  const vault = "LaunchVau1t111111111111111111111111111111111";
  await sql`UPDATE agents SET vault = ${vault} WHERE mint = ${pool.mint}`;
  await refreshDirectory(sql, ch, configs, [pool.mint]);
  expect(await read()).toEqual({ creator: pool.payer || pool.creator, vault });
});
