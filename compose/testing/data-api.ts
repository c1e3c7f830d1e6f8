/**
 * For the Data API's integration tests: the platform with the devnet fixtures posted under
 * the configs data-api.integration.test.ts uses (the same rows, whichever file posts them
 * first: delivery is exactly-once), and the platform served on a real loopback socket.
 */
import { readdirSync, readFileSync } from "node:fs";
import { expect } from "bun:test";
import { testPlatform, registryWith, FIXTURES } from "./platform";

export const FIXTURE_MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const STOCK = "StockCfg11111111111111111111111111111111111";
const LEGACY = "LegacyCfg1111111111111111111111111111111111";

export const fixtureRegistry = () => registryWith([{ role: "legacy", address: LEGACY }, { role: "stock", address: STOCK, ticker: "TSLA" }, { role: "launch", address: CONFIG }]);

type Opts = Parameters<typeof testPlatform>[1];

/** A platform whose engines hold the devnet fixtures. */
export async function fixturePlatform(opts: Opts = {}) {
  const p = await testPlatform(fixtureRegistry(), opts);
  const all = readdirSync(`${FIXTURES}helius-devnet`).map((name) => JSON.parse(readFileSync(`${FIXTURES}helius-devnet/${name}`, "utf8")));
  expect((await p.postWebhook(all)).status).toBe(200);
  return p;
}

/** The platform served over a real socket on 127.0.0.1, stopped whatever `run` does. */
export async function overNetwork(opts: Opts, run: (get: (path: string, headers?: Record<string, string>) => Promise<Response>) => Promise<void>) {
  const p = await testPlatform(fixtureRegistry(), opts);
  const app = p.app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    await run((path, headers = {}) => fetch(`http://127.0.0.1:${app.server!.port}${path}`, { headers }));
  } finally {
    await app.stop(true);
  }
}
