import { describe, expect, test, beforeAll } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { testPlatform, registryWith, FIXTURES } from "../../compose/testing/platform";

const FIXTURE_CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew"; // the devnet config the fixture pool was made on
const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const load = (name: string) => JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${name}`, "utf8"));
const names = readdirSync(`${FIXTURES}helius-devnet`).sort();
const all = () => names.map(load);

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

let p: Awaited<ReturnType<typeof testPlatform>>;

async function snapshot() {
  const ch = p.engines.ch;
  const counts = await ch.query(
    `SELECT
      (SELECT count() FROM trades WHERE mint = {m:String}) AS trades,
      (SELECT count() FROM pool_events WHERE mint = {m:String}) AS pool_events,
      (SELECT toString(sum(volume_sol)) FROM candles_1m WHERE mint = {m:String}) AS candle_volume,
      (SELECT toString(sum(trades)) FROM candles_1m WHERE mint = {m:String}) AS candle_trades,
      (SELECT toString(sum(trades)) FROM market_state WHERE mint = {m:String}) AS market_trades,
      (SELECT count() FROM activity WHERE mint = {m:String}) AS activity,
      (SELECT count() FROM transactions WHERE signature IN {sigs:Array(String)}) AS raw`,
    { m: MINT, sigs: all().map((t: any) => t.signature ?? t.transaction.signatures[0]) },
  );
  const agent = (await p.call(`/v1/public/agents/${MINT}`)).body;
  const trades = (await p.call(`/v1/public/agents/${MINT}/trades?limit=100`)).body;
  const activity = (await p.call(`/v1/public/agents/${MINT}/activity?kinds=launch,trade`)).body;
  return JSON.stringify({ counts, agent, trades, activity });
}

describe("POST /v1/ingest/helius", () => {
  beforeAll(async () => {
    p = await testPlatform(registryWith([{ role: "launch", address: FIXTURE_CONFIG }]));
  });

  test("refuses a missing or wrong secret with 401", async () => {
    expect((await p.postWebhook([], "nope")).status).toBe(401);
    const res = await p.call("/v1/ingest/helius", { method: "POST", body: "[]" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  test("a body that is not a webhook array gets 400 saying what is wrong", async () => {
    const notArray = await p.postWebhook({ signature: "x" });
    expect(notArray.status).toBe(400);
    expect(notArray.body.error.message).toContain("JSON array");
    const badJson = await p.call("/v1/ingest/helius", { method: "POST", headers: { authorization: "test-webhook-secret-0123456789" }, body: "[{" });
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.code).toBe("VALIDATION_ERROR");
    const notObjects = await p.postWebhook([1, 2]);
    expect(notObjects.status).toBe(400);
    expect(notObjects.body.error.message).toContain("element 0");
  });

  test("every fixture is stored once; the coin, its agent, trades and launch appear", async () => {
    const res = await p.postWebhook(all());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 6, undecodable: 0 });

    const agent = (await p.call(`/v1/public/agents/${MINT}`)).body;
    expect(agent.mint).toBe(MINT);
    expect(agent.coinName).toBe("Fuck Around Find Out");
    expect(agent.name).toBe("Fuck Around Find Out");
    expect(agent.symbol).toBe("FAFO");
    expect(agent.category).toBe("community");
    expect(agent.role).toBe("baseline");
    expect(agent.status).toBe("active");
    expect(agent.state).toBe("asleep");
    expect(agent.creator).toBe("5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf");
    expect(agent.agentUrl).toBe(`https://agents.example/agents/${MINT}`);
    expect(agent.market.graduated).toBe(true);
    expect(agent.market.progressPct).toBe(100);
    expect(agent.market.pool).toBe("3x9G9Cpi33HvAxreN1KMiqqCtybXC8uyj3myAKTCuKV9");
    expect(agent.market.holders).toBeNull();
    expect(agent.links).toEqual({});
    expect(agent.budget).toEqual({ availableUsd: 0, wallet: { sol: "0", usdc: "0" } });

    const trades = (await p.call(`/v1/public/agents/${MINT}/trades`)).body;
    const sigs = trades.items.map((t: any) => t.signature);
    expect(sigs).toContain("5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN");
    expect(sigs).toContain("5cfHQeyTUkqEWCYxauctTm9bKH5x8RCQGKkWHpbBuiqeadcEvoMkEXNTYZWoHPuvctQRoG7BEXEVMc9MPJrNhtBf");
    // newest first
    const slots = trades.items.map((t: any) => t.slot);
    expect([...slots].sort((a, b) => b - a)).toEqual(slots);
    const buy = trades.items.find((t: any) => t.signature.startsWith("5gf6"));
    expect(buy).toMatchObject({ side: "buy", amountSol: "0.2", amountToken: "322281812.767019", amountUsd: 30, quote: null, mint: MINT });

    const launch = (await p.call(`/v1/public/agents/${MINT}/activity`)).body;
    expect(launch.items.map((i: any) => i.kind)).toEqual(["launch"]);
    expect(launch.items[0].links.signature).toBe("5hsqkSAZ9qcF5yNkXi4P7oCU2Uw7ydVQQ9oCu6J9Gy418tzygUBxmzTPbU1k2VR3a9a1vi9pxddUwtMvy9218PFL");
  });

  test("duplicate and shuffled delivery gives identical answers", async () => {
    const before = await snapshot();
    for (let seed = 1; seed <= 5; seed++) {
      const body = shuffled([...all(), ...all()], seed);
      expect((await p.postWebhook(body)).status).toBe(200);
      expect(await snapshot()).toBe(before);
    }
    // and one at a time, concurrently
    await Promise.all(shuffled(all(), 99).map((t) => p.postWebhook([t])));
    expect(await snapshot()).toBe(before);
  });

  test("an element that cannot be decoded is kept raw and counted; the rest of the batch lands", async () => {
    const junk = { signature: "junk-signature-1", nonsense: true };
    const res = await p.postWebhook([junk, load("dbc-buy.enhanced.json")]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 2, undecodable: 1 });
    const [row] = await p.engines.ch.query<any>("SELECT status, payload FROM transactions WHERE signature = 'junk-signature-1'");
    expect(row.status).toBe("undecodable");
    expect(JSON.parse(row.payload)).toEqual(junk);
    const metrics = await p.call("/metrics");
    expect(metrics.body).toContain('acp_transactions_total{status="undecodable"} 1');
  });

  test("a failed transaction produces no facts", async () => {
    const failed = load("dbc-buy.enhanced.json");
    failed.signature = "FailedSig1111111111111111111111111111111111111111111111111111111111";
    failed.transactionError = { InstructionError: [6, { Custom: 6003 }] };
    expect((await p.postWebhook([failed])).status).toBe(200);
    const rows = await p.engines.ch.query("SELECT * FROM trades WHERE signature = {s:String}", { s: failed.signature });
    expect(rows).toHaveLength(0);
    const [raw] = await p.engines.ch.query<any>("SELECT status FROM transactions WHERE signature = {s:String}", { s: failed.signature });
    expect(raw.status).toBe("failed");
  });
});
