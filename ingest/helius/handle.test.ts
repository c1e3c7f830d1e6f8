import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { FIXTURES_DIR } from "../../infra/testing/fixtures";
import { checkWebhookBody, decodeWebhookText, MAX_TRANSACTIONS_PER_WEBHOOK } from "./handle";

const fixtures = readdirSync(`${FIXTURES_DIR}helius-devnet`)
  .sort()
  .map((name) => JSON.parse(readFileSync(`${FIXTURES_DIR}helius-devnet/${name}`, "utf8")));

describe("webhook body checks", () => {
  test("a body must be an array of at most the limit of objects", () => {
    expect(checkWebhookBody({})).toEqual({ ok: false, message: expect.stringContaining("JSON array") });
    expect(checkWebhookBody([{}, 1])).toEqual({ ok: false, message: "element 1 is not a transaction object" });
    expect(checkWebhookBody([{}, null])).toMatchObject({ ok: false });
    expect(checkWebhookBody([[]])).toMatchObject({ ok: false });
    expect(checkWebhookBody(Array.from({ length: MAX_TRANSACTIONS_PER_WEBHOOK + 1 }, () => ({})))).toMatchObject({
      ok: false,
      message: expect.stringContaining(`at most ${MAX_TRANSACTIONS_PER_WEBHOOK}`),
    });
    expect(checkWebhookBody([])).toEqual({ ok: true, elements: [] });
  });

  test("text that is not JSON is refused with what Helius sends", () => {
    expect(decodeWebhookText("{not json", "helius", 0)).toEqual({ ok: false, message: expect.stringContaining("not valid JSON") });
  });

  test("real transactions become decoded envelopes; an element that cannot be understood is kept raw, keyed by its signature", () => {
    const broken = { signature: "5".repeat(88), transaction: "garbage" };
    const out = decodeWebhookText(JSON.stringify([...fixtures, broken, { nothing: true }]), "helius", 1234);
    if (!out.ok) throw new Error(out.message);
    expect(out.envelopes).toHaveLength(fixtures.length + 2);
    for (const env of out.envelopes.slice(0, fixtures.length)) {
      expect(env.status).not.toBe("undecodable");
      expect(env.receivedAt).toBe(1234);
      expect(env.slot).toBeGreaterThan(0);
    }
    const [keptRaw, anonymous] = out.envelopes.slice(fixtures.length);
    expect(keptRaw).toMatchObject({ status: "undecodable", signature: "5".repeat(88), facts: [], payload: JSON.stringify(broken) });
    expect(anonymous!.status).toBe("undecodable");
    expect(anonymous!.signature).toMatch(/^invalid:[0-9a-f]{64}$/);
  });
});
