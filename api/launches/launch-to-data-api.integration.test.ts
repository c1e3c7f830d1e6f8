import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { launchTestPlatform, signAsCreator, LAUNCH_CONFIG } from "../../compose/testing/launch";
import { decodeFixturePoolConfig } from "../../ingest/simulator";
import { launchedPool } from "../../ingest/simulator/launched-pool";

// The Launch API's promise, end to end on the all-in-one platform (real Postgres and chDB, the
// loopback JSON-RPC test double): on confirmation the coin and its agent exist with what the
// request asked, and the Data API shows them once the chain data arrives through the real
// Helius webhook (forming/launching until then, then active/asleep as any coin), in either order.
let p: Awaited<ReturnType<typeof launchTestPlatform>>;
beforeAll(async () => {
  p = await launchTestPlatform();
});
afterAll(() => p?.stop());

/** A symbol no other test file in the process uses (engines are shared), so `q=` finds only this coin. */
const uniqueSymbol = (prefix: string) => (prefix + randomBytes(4).toString("hex")).slice(0, 10).toUpperCase();

async function createLaunch(creator: Keypair, over: Record<string, unknown>) {
  const res = await p.create(p.body(creator, over), `test-${randomUUID()}`);
  expect(res.status).toBe(201);
  const launch = res.body;
  const [stored] = await p.engines.sql<{ image_url: string; metadata_uri: string }[]>`SELECT image_url, metadata_uri FROM launches WHERE id = ${launch.id}`;
  expect(stored!.image_url).toMatch(/^https:\/\/api\.example\/v1\/media\/[0-9a-f]{64}\.png$/);
  return { launch, imageUrl: stored!.image_url, metadataUri: stored!.metadata_uri };
}

async function submit(creator: Keypair, launch: { id: string; transaction: string; mint: string; agentUrl: string }) {
  const res = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signAsCreator(launch.transaction, creator) } });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ id: launch.id, status: "confirmed", signature: expect.any(String), mint: launch.mint, agentUrl: launch.agentUrl });
}

/** What the chain says about this launch's pool: exactly its mint, pool, config, vault (pool creator) and user (payer). */
function chainOf(launch: { mint: string; pool: string; vault: string; creator: string }, coin: { name: string; symbol: string; uri: string }) {
  return launchedPool({
    config: { address: LAUNCH_CONFIG, role: "launch", poolConfig: decodeFixturePoolConfig() },
    mint: launch.mint,
    pool: launch.pool,
    creator: launch.vault,
    payer: launch.creator,
    ...coin,
  });
}

/** The Data API is public: no API key. */
const dataApi = (path: string) => p.call("GET", path, { key: null });
const publicAgent = (mint: string) => dataApi(`/v1/public/agents/${mint}`);
const listed = async (query: string) => {
  const res = await dataApi(`/v1/public/agents?${query}`);
  expect(res.status).toBe(200);
  return res.body.items as any[];
};
const registryRow = async (mint: string) =>
  (await p.engines.sql<{ status: string; state: string; name: string | null; template: string; category: string }[]>`
    SELECT status, state, name, template, category FROM agents WHERE mint = ${mint}`)[0];

describe("a launch reaches the Data API", () => {
  test("confirmed first: forming until the pool's creation arrives, then public with everything the request asked", async () => {
    const user = Keypair.generate();
    const symbol = uniqueSymbol("TRD");
    const links = { website: "https://trader.example", social: "https://social.example/trader", telegram: "https://t.me/trader_example" };
    const { launch, imageUrl, metadataUri } = await createLaunch(user, {
      name: "Trend Rider",
      symbol: symbol.toLowerCase(),
      description: "Rides the trend, never the hype",
      goal: "trade",
      agent: { name: "Rider Bot", presence: "influencer", traits: ["bold", "patient"], drive: "Compound the treasury", motto: "Trend is a friend" },
      links,
    });
    await submit(user, launch);

    // before any chain data: the agent exists as asked, launching and forming, and is not public yet
    expect(await registryRow(launch.mint)).toEqual({ status: "launching", state: "forming", name: "Rider Bot", template: "trader", category: "trading" });
    const before = await publicAgent(launch.mint);
    expect(before.status).toBe(404);
    expect(before.body.error.code).toBe("NOT_FOUND");
    expect((await listed(`q=${symbol}`)).map((a) => a.mint)).not.toContain(launch.mint);

    // the chain data arrives through the webhook: the pool's creation, then one buy by the user
    const chain = chainOf(launch, { name: "Trend Rider", symbol, uri: metadataUri });
    const creation = chain.creation();
    const buy = chain.buy(500_000_000n)!;
    expect(buy).not.toBeNull();
    const hook = await p.postWebhook([creation, buy]);
    expect(hook.status).toBe(200);
    expect(hook.body).toEqual({ received: 2, undecodable: 0 });

    expect(await registryRow(launch.mint)).toEqual({ status: "active", state: "asleep", name: "Rider Bot", template: "trader", category: "trading" });
    const res = await publicAgent(launch.mint);
    expect(res.status).toBe(200);
    const agent = res.body;
    expect(agent).toMatchObject({
      mint: launch.mint,
      name: "Rider Bot",
      coinName: "Trend Rider",
      symbol,
      role: "trader",
      category: "trading",
      status: "active",
      state: "asleep",
      creator: user.publicKey.toBase58(),
      description: "Rides the trend, never the hype",
      imageUrl,
      agentUrl: `https://agents.example/agents/${launch.mint}`,
      links,
    });
    expect(agent.market).toMatchObject({ pool: launch.pool, graduated: false, quote: { kind: "sol" } });
    expect(agent.market.lastTradeAt).toBe(new Date(buy.timestamp * 1000).toISOString());
    expect(Number(agent.market.volume24hSol)).toBeGreaterThan(0);
    expect(agent.market.priceSol).toBeGreaterThan(0);
    expect(agent.market.progressPct).toBeGreaterThan(0);

    const trades = (await dataApi(`/v1/public/agents/${launch.mint}/trades`)).body.items;
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ signature: buy.signature, side: "buy", trader: user.publicKey.toBase58(), amountSol: "0.5" });

    const found = await listed(`q=${symbol}`);
    expect(found.map((a) => [a.mint, a.name, a.category])).toEqual([[launch.mint, "Rider Bot", "trading"]]);
    expect((await listed(`category=trading&q=${symbol}`)).map((a) => a.mint)).toEqual([launch.mint]);
    expect(found[0].links).toBeNull(); // the list leaves links to the agent page
  });

  test("chain first: public with the chain's defaults, then the late confirmation lays the launch's choices over them", async () => {
    const user = Keypair.generate();
    const symbol = uniqueSymbol("PAT");
    const links = { website: "https://patron.example" };
    const { launch, imageUrl, metadataUri } = await createLaunch(user, {
      name: "Patron Pal",
      symbol,
      description: "Rewards the holders who stay",
      goal: "reward",
      agent: { name: "Pal Agent", presence: "influencer", traits: ["generous"], drive: "Reward loyalty", motto: "Hold and be held" },
      links,
    });

    // the pool's creation is seen before the launch is confirmed: an agent with the chain's defaults
    const chain = chainOf(launch, { name: "Patron Pal", symbol, uri: metadataUri });
    expect((await p.postWebhook([chain.creation()])).status).toBe(200);
    expect(await registryRow(launch.mint)).toEqual({ status: "active", state: "asleep", name: null, template: "baseline", category: "community" });
    const early = await publicAgent(launch.mint);
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({
      name: "Patron Pal",
      coinName: "Patron Pal",
      symbol,
      role: "baseline",
      category: "community",
      status: "active",
      state: "asleep",
      creator: user.publicKey.toBase58(),
      links: {},
    });
    expect(early.body.market).toMatchObject({ pool: launch.pool, lastTradeAt: null });
    expect((await listed(`category=community&q=${symbol}`)).map((a) => a.mint)).toEqual([launch.mint]);

    // then the confirmation: the agent takes what the request asked, and stays active and asleep
    await submit(user, launch);
    expect(await registryRow(launch.mint)).toEqual({ status: "active", state: "asleep", name: "Pal Agent", template: "patron", category: "rewards" });
    const res = await publicAgent(launch.mint);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mint: launch.mint,
      name: "Pal Agent",
      coinName: "Patron Pal",
      symbol,
      role: "patron",
      category: "rewards",
      status: "active",
      state: "asleep",
      creator: user.publicKey.toBase58(),
      description: "Rewards the holders who stay",
      imageUrl,
      links,
    });
    expect(res.body.market.pool).toBe(launch.pool);
    expect((await listed(`q=${symbol}`)).map((a) => [a.mint, a.name, a.category])).toEqual([[launch.mint, "Pal Agent", "rewards"]]);
    expect((await listed(`category=rewards&q=${symbol}`)).map((a) => a.mint)).toEqual([launch.mint]);
    expect((await listed(`category=community&q=${symbol}`)).map((a) => a.mint)).toEqual([]);

    // a trade afterwards changes nothing of that
    expect((await p.postWebhook([chain.buy(100_000_000n)!])).status).toBe(200);
    const traded = (await publicAgent(launch.mint)).body;
    expect(traded).toMatchObject({ name: "Pal Agent", role: "patron", category: "rewards", status: "active", state: "asleep" });
    expect(traded.market.lastTradeAt).not.toBeNull();
  });
});
