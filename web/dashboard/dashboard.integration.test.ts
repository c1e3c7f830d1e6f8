/**
 * The dashboard page in a real browser: headless Chromium from the machine's packages
 * (infra/testing/browser.ts; CHROMIUM_PATH), the real app on the shared test engines, fed three
 * days of simulated platform traffic through the webhook (trades on the curve and DAMM v2,
 * graduations, fee claims, treasury payouts, buybacks and burns of the platform token).
 * Every figure checked on the page is the API's answer written with the page's own formatting
 * (format.ts), both the answer the page received and one the test asks for itself; the
 * charts must have drawn the API's points; switching range, coin and interval must load the
 * new figures; nothing may log a console error or fail a request. A screenshot of each run
 * is kept under .test-artifacts/ (or TEST_ARTIFACTS_DIR). The browser and the app are
 * stopped whatever the outcome.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { HTTPRequest, Page } from "puppeteer-core";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { chromiumMissing, startBrowser, type TestBrowser } from "../../infra/testing/browser";
import { until } from "../../infra/testing/wait";
import { COLORS } from "./src/charts";
import { formatAtoms, formatBps, formatCount, formatLamports, formatSol, formatUsd } from "./src/format";
import type { Candles, Coin, CoinList, Overview, PlatformStats, Tokenomics, Trades } from "./src/api";

const SEED = 1313; // its own mints: no other test file uses this seed
const AIRDROP_SIGNATURES = [
  "3xN2ZpVjN4pC8QyE6GZkUQm2z9cJv8Xn4d1bHqk7T5rWfYs3aLgPtKe9uMhBo2RiDcVwF6yXjA1nS7qZ8mE4tP5",
  "4yP3aqWkP5qD9RzF7HamVRn3A1dKw9Yo5e2cJrm8U6sXgZt4bMhQuLf1vNiCp3SjEdWxG7zYkB2oT8rA9nF5uQ6",
];
const ARTIFACTS = process.env.TEST_ARTIFACTS_DIR || join(import.meta.dir, "..", "..", ".test-artifacts");

type Platform = Awaited<ReturnType<typeof testPlatform>>;

/** Everything a page did that a user would call broken, and the API answers it received (path → JSON). */
function watch(page: Page) {
  const problems: string[] = [];
  const answers = new Map<string, unknown>();
  page.on("console", (m) => void (m.type() === "error" && problems.push(`console error: ${m.text()}`)));
  page.on("pageerror", (e) => void problems.push(`page error: ${e instanceof Error ? e.message : String(e)}`));
  // an aborted read is the page cancelling what a newer choice replaced (panel.ts), not a failure
  page.on("requestfailed", (r) => void (r.failure()?.errorText !== "net::ERR_ABORTED" && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`)));
  page.on("response", async (r) => {
    const url = new URL(r.url());
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${url.pathname}${url.search}`);
    const body = url.pathname.startsWith("/v1/") && r.ok() ? await r.json().catch(() => undefined) : undefined;
    if (body !== undefined) answers.set(url.pathname + url.search, body);
  });
  return { problems, answers };
}

/** Text of the element a selector names (trimmed), or null. */
const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent?.trim() ?? "").catch(() => null);

/** Waits until no section is loading, and fails naming any that shows an error. */
async function settled(page: Page) {
  await page.waitForFunction(() => Array.from(document.querySelectorAll("main > section")).every((s) => s.getAttribute("data-state") && s.getAttribute("data-state") !== "loading"), { timeout: 30_000 });
  const failed = await page.$$eval("main > section[data-state=error]", (ss) => ss.map((s) => `${s.id}: ${s.querySelector(".status")?.textContent}`));
  expect(failed).toEqual([]);
}

/** Pixels of `rgb` drawn on the canvases of a chart container: lightweight-charts paints on a frame after setData. */
async function drawnPixels(page: Page, container: string, rgb: [number, number, number]): Promise<number> {
  const handle = await page.waitForFunction(
    (sel, [r, g, b]) => {
      let n = 0;
      for (const c of Array.from(document.querySelectorAll<HTMLCanvasElement>(`${sel} canvas`))) {
        if (!c.width || !c.height) continue;
        const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < d.length; i += 4) if (d[i] === r && d[i + 1] === g && d[i + 2] === b && d[i + 3] === 255) n++;
      }
      return n > 0 ? n : false;
    },
    { timeout: 15_000 },
    container,
    rgb,
  );
  return (await handle.jsonValue()) as number;
}
const rgbOf = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

// The rule: skipped, saying why, only where no Chromium is installed; .ci/run installs it and sets
// REQUIRE_CHROMIUM=1, so CI fails instead of skipping.
const noBrowser = process.env.REQUIRE_CHROMIUM === "1" ? null : chromiumMissing();
if (noBrowser) console.warn(`SKIPPED the dashboard browser test: ${noBrowser}`);

(noBrowser ? describe.skip : describe)("GET /dashboard in headless Chromium", () => {
  let p: Platform;
  let server: { stop(): Promise<void>; base: string };
  let chromium: TestBrowser;
  let graduated: string[] = [];
  let mints: string[] = [];
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(server.base + path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    chromium = await startBrowser(); // first: with REQUIRE_CHROMIUM=1 and no browser, fail at once saying what to install
    const configs = fixtureSimConfigs(SEED, { creatorTradingFeePercentage: 30 });
    const now = Math.floor(Date.now() / 1000);
    const count = 3000;
    const sim = createSimulator({ seed: SEED, configs, pools: 6, initialPools: 4, startTime: now - 3 * 86400, secondsPerTx: (3 * 86400 - 3600) / count });
    const batches = Array.from({ length: count / 250 }, () => sim.next(250));
    const state = sim.state();
    mints = state.pools.map((x) => x.mint);
    graduated = state.pools.filter((x) => x.graduated).map((x) => x.mint);
    p = await testPlatform(simulatedConfigRegistry(configs), { env: { TREASURY_ADDRESS: state.treasury, PLATFORM_TOKEN_MINT: state.platformTokenMint } });
    for (const b of batches) expect((await p.postWebhook(b)).status).toBe(200);
    await p.holders.flush(); // holder counts settle before the page and the test read them
    // an airdrop a coin's vault paid in two transactions, as the treasury records it once published (the
    // payments themselves are api/app-public/action-payouts.integration.test.ts's): the newest recent payout
    const sql = p.engines.sql;
    const [snap] = await sql<{ id: string }[]>`
      INSERT INTO holder_snapshots (mint, slot, token_program, holders, total_atoms, snapshot_hash)
      VALUES (${mints[0]!}, 1, 'spl-token', 2, 2, ${"0".repeat(64)}) RETURNING id::text`;
    const [drop] = await sql<{ id: string }[]>`
      INSERT INTO airdrops (mint, ref, requested_by, lamports, paid_lamports, recipients, snapshot_id, status, completed_at, published_at)
      VALUES (${mints[0]!}, 'dashboard', 'agent', 2000000, 2000000, 2, ${snap!.id}, 'paid', now(), now()) RETURNING id::text`;
    const [agent] = await sql<{ vault: string }[]>`SELECT vault FROM agents WHERE mint = ${mints[0]!}`;
    for (const seq of [0, 1])
      await sql`
        INSERT INTO payment_batches (owner_kind, owner_id, seq, payer_kind, payer_mint, payer, lamports, status, signature)
        VALUES ('airdrop', ${drop!.id}, ${seq}, 'vault', ${mints[0]!}, ${agent!.vault}, 1000000, 'confirmed', ${AIRDROP_SIGNATURES[seq]!})`;
    const app = p.app.listen({ port: 0, hostname: "127.0.0.1" });
    server = { base: `http://127.0.0.1:${app.server!.port}`, stop: async () => void (await app.stop(true)) };
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await chromium?.stop();
    await server?.stop();
    await p?.decoder.close();
  });

  test("the traffic made what the page shows: graduated coins, buybacks, revenue on several days", async () => {
    expect(graduated.length).toBeGreaterThan(0);
    const all = await api<Overview>("/v1/analytics/overview?range=all");
    expect(all.revenue.series.length).toBeGreaterThan(1);
    expect((await api<Tokenomics>("/v1/tokenomics")).recentBuybacks.length).toBeGreaterThan(0);
  });

  test("figures, charts, range, coin and interval switches: the API's numbers, drawn, with no error", async () => {
    const page = await chromium.browser.newPage();
    const { problems, answers } = watch(page);
    // the body of an answer is read over the DevTools protocol after the page got it: wait for it
    const answer = <T>(path: string) => until(`the page's answer to ${path}`, async () => answers.get(path) as T | undefined, 10_000);
    try {
      await page.goto(`${server.base}/dashboard`, { waitUntil: "load" });
      await settled(page);

      // platform totals: what the page received, and the test's own read of the stable ones
      const stats = await answer<PlatformStats>("/v1/platform/stats");
      for (const [field, value] of [
        ["coins", formatCount(stats.coins)],
        ["graduated", formatCount(stats.graduated)],
        ["tradesAll", formatCount(stats.tradesAll)],
        ["trades24h", formatCount(stats.trades24h)],
        ["volumeAllSol", formatSol(stats.volumeAllSol)],
        ["feesAllSol", formatSol(stats.feesAllSol)],
        ["marketCapUsd", formatUsd(stats.marketCapUsd)],
      ] as const)
        expect({ field, shown: await text(page, `#platform [data-field="${field}"]`) }).toEqual({ field, shown: value });
      const own = await api<PlatformStats>("/v1/platform/stats");
      expect(own.tradesAll).toBeGreaterThan(0);
      expect(await text(page, '#platform [data-field="tradesAll"]')).toBe(formatCount(own.tradesAll));
      expect(await text(page, '#platform [data-field="volumeAllSol"]')).toBe(formatSol(own.volumeAllSol));

      // the default range (24 h)
      const day = await answer<Overview>("/v1/analytics/overview?range=24h");
      expect(await text(page, "#range-label")).toBe("last 24 hours");
      expect(await text(page, '#range [data-field="range.trades"]')).toBe(formatCount(day.totals.trades));
      expect(await text(page, '#range [data-field="range.volume"]')).toBe(formatLamports(day.totals.volumeLamports));
      expect(await text(page, '#range [data-field="revenue"]')).toBe(formatLamports(day.revenue.lamports));

      // switch to 7 days: new figures, the revenue chart drawn from the API's days
      await page.click('input[name="range"][value="7d"]');
      await page.waitForFunction(() => document.querySelector("#range-label")?.textContent === "last 7 days");
      await settled(page);
      const week = await answer<Overview>("/v1/analytics/overview?range=7d");
      const ownWeek = await api<Overview>("/v1/analytics/overview?range=7d");
      expect(ownWeek.revenue.lamports).toBe(week.revenue.lamports);
      expect(BigInt(week.revenue.lamports)).toBeGreaterThan(0n);
      expect(await text(page, '#range [data-field="revenue"]')).toBe(formatLamports(ownWeek.revenue.lamports));
      expect(await text(page, '#range [data-field="range.tradingFees"]')).toBe(formatLamports(week.totals.tradingFeesLamports));
      expect(await text(page, '#range [data-field="feeSplit.creator"]')).toBe(formatLamports(week.feeSplit.creatorLamports));
      expect(await text(page, '#range [data-field="feeSplit.platform"]')).toBe(formatLamports(week.feeSplit.platformLamports));
      const days = await page.$$eval("#range tr[data-day]", (rows) => rows.map((r) => [r.getAttribute("data-day"), r.children[1]!.textContent]));
      expect(days).toEqual(week.revenue.series.map((d) => [d.day, formatLamports(d.lamports)]));
      expect(await page.$eval("#revenue-chart", (e) => (e as HTMLElement).dataset.points)).toBe(String(week.revenue.series.length));
      expect(await drawnPixels(page, "#revenue-chart", rgbOf(COLORS.revenue))).toBeGreaterThan(50);
      expect(new URL(page.url()).searchParams.get("range")).toBe("7d");
      const payouts = await page.$$eval('#range [data-field="signature"]', (cs) => cs.map((c) => c.textContent));
      expect(payouts).toEqual(week.recentPayouts.map((x) => x.signature));
      // an airdrop paid in two transactions: its kind in words, the first transaction and how many more (all in its title)
      expect(week.recentPayouts[0]).toMatchObject({ kind: "airdrop", mint: mints[0], lamports: "2000000", signature: AIRDROP_SIGNATURES[0], signatures: AIRDROP_SIGNATURES });
      const drop = await page.$eval('#range [data-field="signatures"]', (s) => ({ kind: s.closest("tr")!.children[1]!.textContent, text: s.textContent, title: s.getAttribute("title") }));
      expect(drop).toEqual({ kind: "Airdrop to holders", text: `${AIRDROP_SIGNATURES[0]} +1 more`, title: AIRDROP_SIGNATURES.join("\n") });

      // tokenomics
      const k = await answer<Tokenomics>("/v1/tokenomics");
      expect(await text(page, '#tokenomics [data-field="feesClaimed"]')).toBe(formatLamports(k.totals.feesClaimedLamports));
      expect(await text(page, '#tokenomics [data-field="buybackSpent"]')).toBe(formatLamports(k.totals.buybackSpentLamports));
      expect(await text(page, '#tokenomics [data-field="burnedAtoms"]')).toBe(formatAtoms(k.totals.platformTokenBurnedAtoms));
      expect(await text(page, '#tokenomics [data-field="burnedShare"]')).toBe(formatBps(k.totals.burnedShareBps));
      expect(await text(page, '#tokenomics [data-field="platformTokenMint"]')).toBe(k.platformTokenMint);
      expect(await page.$$eval('#tokenomics [data-field="signature"]', (cs) => cs.map((c) => c.textContent))).toEqual([
        ...k.recentBuybacks.map((b) => b.signature),
        ...k.recentCreatorPayouts.map((x) => x.signature),
      ]);

      // top coins, in the API's order
      const list = await answer<CoinList>("/v1/tokens?sort=marketcap&limit=50");
      expect(await page.$$eval("#top-coins tbody tr", (rows) => rows.map((r) => r.getAttribute("data-mint")))).toEqual(list.items.slice(0, 10).map((c) => c.mint));

      // the coin view opens on the largest coin: its figures, candles drawn, its latest trade
      const first = list.items[0]!;
      await checkCoin(page, first.mint, "1h", answer);

      // pick a graduated coin: its candles run across the curve and DAMM v2
      const grad = graduated[0]!;
      await page.select("#coin-select", grad);
      await page.waitForFunction((m) => document.querySelector("#coin")?.getAttribute("data-state") === "ready" && document.querySelector('[data-field="coin.mint"]')?.textContent === m, {}, grad);
      await checkCoin(page, grad, "1h", answer);
      expect(await text(page, '#coin [data-field="coin.venue"]')).toStartWith("DAMM v2");
      expect(new URL(page.url()).searchParams.get("coin")).toBe(grad);

      // another interval
      await page.select("#interval-select", "1d");
      await page.waitForFunction(() => document.querySelector("#coin")?.getAttribute("data-state") === "ready" && document.querySelector("#coin h4")?.textContent?.includes("1d"));
      await checkCoin(page, grad, "1d", answer);

      // "View" in the top coins table opens that coin (one of ours when ours are among the ten)
      const top = list.items.slice(0, 10).filter((c) => c.mint !== grad);
      const other = top.find((c) => mints.includes(c.mint)) ?? top[0]!;
      await page.click(`#top-coins tr[data-mint="${other.mint}"] button`);
      await page.waitForFunction((m) => document.querySelector("#coin")?.getAttribute("data-state") === "ready" && document.querySelector('[data-field="coin.mint"]')?.textContent === m, {}, other.mint);
      await checkCoin(page, other.mint, "1d", answer);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("coin-heading");

      // a linked view opens as linked
      await page.goto(`${server.base}/dashboard?range=all&coin=${grad}&interval=4h`, { waitUntil: "load" });
      await settled(page);
      expect(await text(page, "#range-label")).toBe("all time");
      expect(await page.$eval('input[name="range"][value="all"]', (e) => (e as HTMLInputElement).checked)).toBe(true);
      await checkCoin(page, grad, "4h", answer);

      await page.screenshot({ path: join(ARTIFACTS, "dashboard.png"), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  /**
   * The coin view shows `mint`: its figures, its trades newest first (the first one as the test
   * reads it itself), and candles drawn from the API's answer. The engines are shared with other
   * test files, whose coins may have no trade: ours (`mints`) must have both.
   */
  async function checkCoin(page: Page, mint: string, interval: string, answer: <T>(path: string) => Promise<T>) {
    await settled(page);
    const coin = await answer<Coin>(`/v1/tokens/${mint}`);
    const trades = await answer<Trades>(`/v1/tokens/${mint}/trades?limit=20`);
    const candles = await answer<Candles>(`/v1/tokens/${mint}/candles?interval=${interval}`);
    expect(await text(page, '#coin [data-field="coin.mint"]')).toBe(mint);
    expect(await text(page, "#coin-title")).toBe(`${coin.name} (${coin.symbol})`);
    expect(await text(page, '#coin [data-field="coin.marketCap"]')).toBe(formatSol(coin.market.marketCapSol));
    expect(await page.$eval("#coin-select", (s) => (s as HTMLSelectElement).value)).toBe(mint);
    const own = await api<Trades>(`/v1/tokens/${mint}/trades?limit=1`);
    if (mints.includes(mint)) expect(own.items.length * candles.items.length).toBeGreaterThan(0);
    expect(await page.$$eval('#coin [data-field="signature"]', (cs) => cs.map((c) => c.textContent))).toEqual(trades.items.map((t) => t.signature));
    if (own.items.length > 0) expect(await text(page, '#coin tbody tr:first-child [data-field="signature"]')).toBe(own.items[0]!.signature);
    const notes = await page.$$eval("#coin p.empty", (ps) => ps.map((p) => p.textContent));
    expect(notes).toEqual([...(candles.items.length ? [] : ["No trades in this window."]), ...(trades.items.length ? [] : ["No trades yet."])]);
    if (candles.items.length === 0) return;
    expect(await page.$eval("#candle-chart", (e) => (e as HTMLElement).dataset.points)).toBe(String(candles.items.length));
    const up = candles.items.some((c) => c.close >= c.open);
    expect(await drawnPixels(page, "#candle-chart", rgbOf(up ? COLORS.up : COLORS.down))).toBeGreaterThan(0);
  }

  test("a failed read shows its error and a Retry that works; empty answers say so; the page starts as loading", async () => {
    const html = await (await fetch(`${server.base}/dashboard`)).text();
    expect(html.match(/<p class="status" role="status">Loading…<\/p>/g)?.length).toBe(5);
    const page = await chromium.browser.newPage();
    const { answers } = watch(page);
    let failTokenomics = true;
    const mint = mints[0]!;
    await page.setRequestInterception(true);
    page.on("request", (r: HTTPRequest) => {
      const path = new URL(r.url()).pathname;
      if (path === "/v1/tokenomics" && failTokenomics)
        return void r.respond({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "UPSTREAM_ERROR", message: "the engines did not answer" } }) });
      if (path === `/v1/tokens/${mint}/trades`) return void r.respond({ status: 200, contentType: "application/json", body: JSON.stringify({ items: [], nextCursor: null }) });
      void r.continue();
    });
    try {
      await page.goto(`${server.base}/dashboard?coin=${mint}`, { waitUntil: "load" });
      await page.waitForFunction(() => document.querySelector("#tokenomics")?.getAttribute("data-state") === "error");
      expect(await page.$eval("#tokenomics .status", (e) => e.getAttribute("role"))).toBe("alert");
      expect(await text(page, "#tokenomics .status")).toBe("Could not load tokenomics. UPSTREAM_ERROR: the engines did not answer (HTTP 503, /v1/tokenomics) Retry");
      await page.waitForFunction(() => document.querySelector("#coin")?.getAttribute("data-state") === "ready");
      expect(await text(page, "#coin p.empty")).toBe("No trades yet.");
      failTokenomics = false;
      await page.click("#tokenomics .status button");
      await page.waitForFunction(() => document.querySelector("#tokenomics")?.getAttribute("data-state") === "ready");
      // the page may draw before this side has read the answer's body (the response handler is asynchronous)
      const k = await until("the page's answer to /v1/tokenomics", async () => answers.get("/v1/tokenomics") as Tokenomics | undefined, 10_000);
      expect(await text(page, '#tokenomics [data-field="feesClaimed"]')).toBe(formatLamports(k.totals.feesClaimedLamports));
    } finally {
      await page.close();
    }
  }, 60_000);
});
