/**
 * The all-in-one platform set up for Launch API tests: real engines, the loopback
 * JSON-RPC test double serving the real mainnet DBC PoolConfig under a launch and a
 * stock config address, a loopback image host test double, a vault encryption key,
 * and an API key. Nothing leaves 127.0.0.1.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { startRpcTestDouble, launchFixtureAccounts } from "../../infra/testing/rpc-double";
import { registryWith, testPlatform } from "./platform";
import { configRegistry } from "../../ingest/contract/configs";
import { createApiKey } from "../../api/launches/api-keys";
import { png } from "../../api/launches/testdata/images";

export const LAUNCH_CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
export const STOCK_CONFIG = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
export const STOCK_MINT = "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB"; // a tokenized-stock mint address (only its form matters here)

/** Test double: an image host on loopback. /ok.png is a 64×64 PNG; /big.png is 5 MB + 1 byte; /missing is 404. */
export function startImageHostTestDouble() {
  const ok = png(64, 64);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/ok.png" || path === "/other.png") return new Response(path === "/ok.png" ? ok : png(32, 32), { headers: { "content-type": "image/png" } });
      if (path === "/big.png") return new Response(png(64, 64, 5 * 1024 * 1024 + 1), { headers: { "content-type": "image/png" } });
      if (path === "/page.html") return new Response("<html><body>not an image</body></html>", { headers: { "content-type": "image/png" } });
      return new Response("not found", { status: 404 });
    },
  });
  return { url: (path: string) => `http://127.0.0.1:${server.port}${path}`, stop: () => server.stop(true) };
}

export async function launchTestPlatform(env: Record<string, string> = {}) {
  const rpc = startRpcTestDouble(launchFixtureAccounts([LAUNCH_CONFIG, STOCK_CONFIG]));
  const images = startImageHostTestDouble();
  const base = registryWith([{ role: "launch", address: LAUNCH_CONFIG }, { role: "stock", address: STOCK_CONFIG, ticker: "TSLA" }]);
  // the fixture's quote is SOL; the stock config is given a tokenized stock as its quote
  const configs = configRegistry(
    base.all.map((c) => (c.role === "stock" ? { ...c, quote: { kind: "stock" as const, mint: STOCK_MINT, symbol: "TSLAx", decimals: 8, ticker: "TSLA" } } : c)),
  );
  const platform = await testPlatform(configs, {
    env: {
      API_BASE_URL: "https://api.example",
      SOLANA_RPC_URL: rpc.url,
      VAULT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ALLOW_LOOPBACK_FETCH: "true",
      DATA_DIR: mkdtempSync(join(tmpdir(), "launch-test-")),
      LAUNCH_SUBMIT_WAIT_SECONDS: "1",
      LAUNCH_RATE_PER_MINUTE: "100000",
      LAUNCH_DAILY_QUOTA: "100000",
      ...env,
    },
  });
  const { key } = await createApiKey(platform.engines.sql, { name: `launch-test-${randomBytes(4).toString("hex")}`, scopes: ["launch"] });

  /** A Launch API call with this platform's key (`key: null` sends none). */
  const call = (method: string, path: string, o: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...o.headers };
    const k = o.key === undefined ? key : o.key;
    if (k !== null) headers.authorization = `Bearer ${k}`;
    return platform.call(path, { method, headers, body: o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body) });
  };
  const create = (body: unknown, idempotencyKey: string, o: { key?: string | null } = {}) =>
    call("POST", "/v1/launches", { ...o, body, headers: { "idempotency-key": idempotencyKey } });

  /** A valid create body for `creator`, with overrides. */
  const body = (creator: Keypair, over: Record<string, unknown> = {}) => ({
    creator: creator.publicKey.toBase58(),
    name: "Moon Dog",
    symbol: "mdog",
    description: "A community coin for dog lovers",
    image: { url: images.url("/ok.png") },
    ...over,
  });

  /** A created launch (asserting the 201) and the creator who must sign it. */
  const built = async (over: Record<string, unknown> = {}) => {
    const creator = Keypair.generate();
    const res = await create(body(creator, over), newIdempotencyKey());
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { creator, launch: res.body };
  };

  return {
    ...platform,
    configs,
    built,
    rpc,
    images,
    key,
    call,
    create,
    body,
    stop() {
      rpc.stop();
      images.stop();
      platform.decoder.close();
    },
  };
}

export const newIdempotencyKey = () => `test-${randomUUID()}`;

/** The creator's wallet signs the built transaction last; returns it as base64. */
export function signAsCreator(transactionBase64: string, creator: Keypair): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(transactionBase64, "base64"));
  tx.sign([creator]);
  return Buffer.from(tx.serialize()).toString("base64");
}
