/**
 * The repository is complete in itself: a clone alone installs, runs and passes its
 * tests. Nothing tracked may reach outside it (a sibling `shared/` folder, say).
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";

function trackedFiles(): string[] {
  const out = Bun.spawnSync(["git", "ls-files"], { cwd: import.meta.dir });
  if (out.exitCode !== 0) throw new Error(`git ls-files failed: ${out.stderr.toString()}`);
  return out.stdout.toString().split("\n").filter(Boolean);
}

const isGitCheckout = Bun.spawnSync(["git", "rev-parse", "--is-inside-work-tree"], { cwd: import.meta.dir }).exitCode === 0;

// An exported tree (no .git) has nothing to list; a checkout is always checked.
test.skipIf(!isGitCheckout)("no tracked file points outside the repository", () => {
  const outside = /\.\.\/(\.\.\/)*shared\/|\.\.\/\.library\//;
  const offenders = trackedFiles()
    .filter((f) => /\.(ts|md|json|sh|yml|toml)$|^\.ci\//.test(f) && f !== "repository.test.ts")
    .filter((f) => outside.test(readFileSync(`${import.meta.dir}/${f}`, "utf8")));
  expect(offenders).toEqual([]);
});

test("the chain fixtures the tests read are in the repository", () => {
  const names = readdirSync(`${import.meta.dir}/fixtures/helius-devnet`).concat(readdirSync(`${import.meta.dir}/fixtures/mainnet-accounts`));
  expect(names.length).toBeGreaterThan(0);
  const readme = readFileSync(`${import.meta.dir}/fixtures/README.md`, "utf8");
  for (const name of names) expect(readme).toContain(name);
});
