/**
 * How long the safety filter takes to check one launch's text fields (it runs on every create).
 * Run: `bun run bench/firewall.ts`.
 */
import { loadFirewall } from "../api/firewall/firewall";

const fw = loadFirewall();
const launch = [
  { field: "name", text: "Moon Dog" },
  { field: "symbol", text: "MDOG" },
  { field: "description", text: "A community coin for dog lovers. The agent buys dips, posts memes and airdrops 5% of fees to holders every month. ".repeat(4) },
  { field: "agent.name", text: "Oracle Pup" },
  { field: "agent.traits.0", text: "curious" },
  { field: "agent.drive", text: "Call the odds right and reward loyal holders with contests, buybacks and burns, 24/7 since 2024" },
  { field: "agent.motto", text: "Fetch the truth" },
];
for (let i = 0; i < 200; i++) fw.check(launch);
const runs = 5000;
const started = performance.now();
for (let i = 0; i < runs; i++) if (fw.check(launch)) throw new Error("a legitimate launch was blocked");
console.log(`firewall: ${(((performance.now() - started) / runs) * 1000).toFixed(1)} µs per launch (7 fields, a 460-character description), ${runs} runs`);
