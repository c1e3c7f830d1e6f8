import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { testEngines } from "../infra/testing/engines";
import { FIXTURES } from "../infra/testing/platform";
import { migrationFiles, statements } from "../infra/migrate";
import { claim, claimKey, claimed, release } from "./in-flight";

/** Real signatures from the recorded devnet transactions. */
const SIGNATURES = readdirSync(FIXTURES + "helius-devnet")
  .filter((f) => f.endsWith(".json"))
  .flatMap((f) => [...readFileSync(FIXTURES + "helius-devnet/" + f, "utf8").matchAll(/"signature":\s*"([1-9A-HJ-NP-Za-km-z]{64,88})"/g)].map((m) => m[1]!));

describe("in-flight claims", () => {
  test("a signature's key is the value of its last ten base58 digits", () => {
    expect(SIGNATURES.length).toBeGreaterThan(3);
    expect(claimKey("1111111111")).toBe("0");
    expect(claimKey("xxxx1111111112")).toBe("1");
    expect(claimKey("zzzzzzzzzz")).toBe(String(58n ** 10n - 1n));
    for (const s of SIGNATURES) expect(BigInt(claimKey(s))).toBeLessThan(2n ** 63n);
    expect(new Set(SIGNATURES.map(claimKey)).size).toBe(new Set(SIGNATURES).size);
    // an undecodable element's stand-in id is not base58: it is hashed into the same range
    const standIn = claimKey("invalid:0a1b2c");
    expect(BigInt(standIn)).toBeLessThan(2n ** 63n);
    expect(claimKey("invalid:0a1b2c")).toBe(standIn);
  });

  test("a claim is won once; the second claimant is told; release frees it", async () => {
    const { sql } = await testEngines();
    const sigs = [...SIGNATURES.slice(0, 3), "invalid:claims-test"];
    await release(sql, sigs);
    expect(await claim(sql, sigs)).toEqual([]);
    expect(await claimed(sql, sigs)).toEqual(new Set(sigs));
    expect((await claim(sql, [sigs[0]!, SIGNATURES[3]!])).sort()).toEqual([sigs[0]!]);
    await release(sql, [...sigs, SIGNATURES[3]!]);
    expect(await claimed(sql, sigs)).toEqual(new Set());
    expect(await claim(sql, sigs)).toEqual([]);
    await release(sql, sigs);
  });

  test("the upgrade carries a claim left by a dead write over under the key the code computes", async () => {
    const { sql } = await testEngines();
    const migration = migrationFiles("postgres").find((f) => f.name === "0005_sink_claims.sql")!;
    const carryOver = statements(migration.text).find((s) => s.startsWith("INSERT INTO sink_claims"))!;
    const left = SIGNATURES.slice(0, 4);
    await sql
      .begin(async (tx) => {
        // the table as 0001 made it, in this transaction only (a temporary table comes first on the search path)
        await tx`CREATE TEMPORARY TABLE sink_inflight (signature text PRIMARY KEY, since timestamptz NOT NULL DEFAULT now())`;
        await tx`INSERT INTO sink_inflight (signature) SELECT unnest(${[...left, "invalid:not-base58"]}::text[])`;
        await tx.unsafe(carryOver);
        const keys = await tx<{ key: string }[]>`SELECT key::text AS key FROM sink_claims WHERE key = ANY(${left.map(claimKey)}::bigint[])`;
        expect(keys.map((k) => k.key).sort()).toEqual(left.map(claimKey).sort());
        throw new Error("roll back");
      })
      .catch((e: Error) => expect(e.message).toBe("roll back"));
    expect(await claimed(sql, left)).toEqual(new Set());
  });
});
