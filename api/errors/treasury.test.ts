/**
 * The refusals treasury actions share, and the table of their codes the OpenAPI document lists for
 * every action (api/openapi/treasury.ts): a refusal added or changed here without the table fails.
 */
import { expect, test } from "bun:test";
import { capabilityMissing, chainUnavailable, notCovered, refReused, TREASURY_REFUSALS, vaultKeyMissing } from "./treasury";

test("TREASURY_REFUSALS is exactly the status and code of each shared refusal", () => {
  const room = { claimedLamports: 3n, committedLamports: 2n, availableLamports: 1n };
  const refusals = [refReused("weekly-0001"), capabilityMissing("program.contest", "trader"), vaultKeyMissing("Mint1111"), notCovered(5n, room), chainUnavailable()];
  const listed = Object.entries(TREASURY_REFUSALS).flatMap(([status, codes]) => codes.map((code) => `${status} ${code}`));
  expect(listed).toEqual(refusals.map((e) => `${e.status} ${e.code}`));
});
