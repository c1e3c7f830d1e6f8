import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { testEngines } from "../infra/testing/engines";
import { FIXTURES } from "../compose/testing/platform";
import { migrationFiles, statements } from "../infra/migrate";
import { clearInFlight, createInFlightMarker, markInFlight, markKey, markedInFlight } from "./in-flight";

/** Real signatures from the recorded devnet transactions. */
const SIGNATURES = readdirSync(FIXTURES + "helius-devnet")
  .filter((f) => f.endsWith(".json"))
  .flatMap((f) => [...readFileSync(FIXTURES + "helius-devnet/" + f, "utf8").matchAll(/"signature":\s*"([1-9A-HJ-NP-Za-km-z]{64,88})"/g)].map((m) => m[1]!));

describe("in-flight marks", () => {
  test("a signature's key is the value of its last ten base58 digits", () => {
    expect(SIGNATURES.length).toBeGreaterThan(3);
    expect(markKey("1111111111")).toBe("0");
    expect(markKey("xxxx1111111112")).toBe("1");
    expect(markKey("zzzzzzzzzz")).toBe(String(58n ** 10n - 1n));
    for (const s of SIGNATURES) expect(BigInt(markKey(s))).toBeLessThan(2n ** 63n);
    expect(new Set(SIGNATURES.map(markKey)).size).toBe(new Set(SIGNATURES).size);
    // an undecodable element's stand-in id is not base58: it is hashed into the same range
    const standIn = markKey("invalid:0a1b2c");
    expect(BigInt(standIn)).toBeLessThan(2n ** 63n);
    expect(markKey("invalid:0a1b2c")).toBe(standIn);
  });

  test("a mark is made once; the second writer is told; clearing removes it", async () => {
    const { sql } = await testEngines();
    const sigs = [...SIGNATURES.slice(0, 3), "invalid:in-flight-test"];
    await clearInFlight(sql, sigs);
    expect(await markInFlight(sql, sigs)).toEqual([]);
    expect(await markedInFlight(sql, sigs)).toEqual(new Set(sigs));
    expect((await markInFlight(sql, [sigs[0]!, SIGNATURES[3]!])).sort()).toEqual([sigs[0]!]);
    await clearInFlight(sql, [...sigs, SIGNATURES[3]!]);
    expect(await markedInFlight(sql, sigs)).toEqual(new Set());
    expect(await markInFlight(sql, sigs)).toEqual([]);
    await clearInFlight(sql, sigs);
  });

  test("callers that arrive while the statements are busy are marked together; each is told what another marked first", async () => {
    const { sql } = await testEngines();
    const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    const fresh = () => Array.from({ length: 88 }, () => base58[Math.floor(Math.random() * 58)]).join("");
    const [s1, s2, s3, s4] = [fresh(), fresh(), fresh(), fresh()];
    await clearInFlight(sql, [s1, s2, s3, s4]);
    let statements = 0;
    const counting = new Proxy(sql, {
      apply(target, self, args: unknown[]) {
        statements++;
        return Reflect.apply(target, self, args);
      },
    });
    const mark = createInFlightMarker(counting, 1);
    // A runs alone; B and C wait for it and go together: B (first) wins s3, C is told
    const [a, b, c] = await Promise.all([mark([s1, s2]), mark([s2, s3]), mark([s3, s4])]);
    expect(statements).toBe(2);
    expect(a).toEqual([]);
    expect(b).toEqual([s2]);
    expect(c).toEqual([s3]);
    expect(await markedInFlight(sql, [s1, s2, s3, s4])).toEqual(new Set([s1, s2, s3, s4]));
    await clearInFlight(sql, [s1, s2, s3, s4]);
  });

  test("the upgrades carry a mark left by a dead write over, under the key the code computes", async () => {
    const { sql } = await testEngines();
    const file = (name: string) => statements(migrationFiles("postgres").find((f) => f.name === name)!.text);
    const carryOver = file("0005_sink_claims.sql").find((s) => s.startsWith("INSERT INTO sink_claims"))!;
    const rename = file("0007_sink_in_flight.sql");
    const left = SIGNATURES.slice(0, 4);
    await sql
      .begin(async (tx) => {
        // the tables as 0001 and 0005 made them, in this transaction only (a temporary table
        // comes first on the search path)
        await tx`CREATE TEMPORARY TABLE sink_inflight (signature text PRIMARY KEY, since timestamptz NOT NULL DEFAULT now())`;
        await tx`CREATE TEMPORARY TABLE sink_claims (key bigint PRIMARY KEY, since timestamptz NOT NULL DEFAULT now())`;
        await tx`INSERT INTO sink_inflight (signature) SELECT unnest(${[...left, "invalid:not-base58"]}::text[])`;
        await tx.unsafe(carryOver);
        for (const statement of rename) await tx.unsafe(statement);
        const keys = await tx<{ key: string }[]>`SELECT key::text AS key FROM pg_temp.sink_in_flight WHERE key = ANY(${left.map(markKey)}::bigint[])`;
        expect(keys.map((k) => k.key).sort()).toEqual(left.map(markKey).sort());
        throw new Error("roll back");
      })
      .catch((e: Error) => expect(e.message).toBe("roll back"));
    expect(await markedInFlight(sql, left)).toEqual(new Set());
  });
});
