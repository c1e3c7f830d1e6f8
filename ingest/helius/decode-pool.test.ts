import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createApp } from "../../api/app";
import { createLogger } from "../../infra/log";
import { FIXTURES } from "../../compose/testing/platform";
import type { TxEnvelope } from "../contract/envelope";
import { createDecodePool, DecoderUnavailable, type DecodePool } from "./decode-pool";

// Real worker threads running a faulty double of the worker script (testing/faulty-decode-worker.ts).
const FAULTY = new URL("./testing/faulty-decode-worker.ts", import.meta.url);
const SECRET = "decode-pool-test-secret-0123456789";
const body = JSON.stringify([JSON.parse(readFileSync(`${FIXTURES}helius-devnet/dbc-buy.enhanced.json`, "utf8"))]);

/** The webhook route over `decoder`, with a bus that records what it was given. */
function webhook(decoder: DecodePool) {
  const published: TxEnvelope[][] = [];
  const app = createApp({
    log: createLogger("error"),
    ready: async () => true,
    metricsText: () => "",
    data: null,
    ingest: { bus: { publish: async (b) => void published.push(b), close: async () => {} }, decoder, webhookSecret: () => SECRET, log: createLogger("error") },
  });
  const post = async (text: string) => {
    const res = await app.handle(new Request("http://local/v1/ingest/helius", { method: "POST", headers: { authorization: SECRET }, body: text }));
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
  };
  return { post, published };
}

describe("decode pool faults", () => {
  test("a decoder that throws is a 503 with retry-after, not a 400; nothing is published; the worker keeps serving", async () => {
    for (const workers of [1, 0]) {
      const decoder = workers ? createDecodePool(workers, { script: FAULTY }) : createDecodePool(0);
      const { post, published } = webhook(decoder);
      try {
        if (workers) {
          const res = await post("throw");
          expect(res).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "UNAVAILABLE" } } });
          expect(published).toEqual([]);
        }
        expect((await post("[{")).status).toBe(400); // the sender's fault stays a 400
        expect((await post(body)).status).toBe(200);
        expect(published).toHaveLength(1);
      } finally {
        await decoder.close();
      }
    }
  });

  test("a worker that dies fails its calls in flight at once with 503, and is replaced for the next call", async () => {
    const decoder = createDecodePool(1, { script: FAULTY });
    const { post, published } = webhook(decoder);
    try {
      const inFlight = decoder.decode("hang", "helius"); // never answered by a live worker
      const killed = await post("exit");
      expect(killed).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "UNAVAILABLE" } } });
      await expect(inFlight).rejects.toBeInstanceOf(DecoderUnavailable);
      expect(published).toEqual([]);
      // the next call gets a new worker
      expect((await post(body)).status).toBe(200);
      expect(published).toHaveLength(1);
    } finally {
      await decoder.close();
    }
  });
});
