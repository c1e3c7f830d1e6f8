/**
 * `bun run keys`: create, list and revoke Launch API keys.
 *
 *   bun run keys create --name <name> --scope launch   prints the new key once
 *   bun run keys list                                  id, name, prefix, scopes, dates (never the key)
 *   bun run keys revoke <id|prefix>
 *
 * Connects like the service: DATABASE_URL, else the embedded Postgres under DATA_DIR/postgres
 * (attached to when the service is running, else started and stopped here); see
 * infra/postgres-attach.ts. Exit codes: 0 done, 1 failed, 2 bad usage or configuration.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../../../infra/config";
import { openPostgresOrSay } from "../../../infra/postgres-attach";
import type { Sql } from "../../../infra/postgres";
import { ApiKeyInputError, createApiKey, listApiKeys, revokeApiKey, SCOPES, type ApiKeyRecord } from "../api-keys";

const USAGE = `Launch API keys.

usage:
  bun run keys create --name <name> --scope <scope> [--scope <scope>...]
  bun run keys list
  bun run keys revoke <id|prefix>
  bun run keys --help

scopes: ${SCOPES.join(", ")}
The key is printed once, by create; only its SHA-256 hash is stored.
Uses DATABASE_URL, else the embedded Postgres under DATA_DIR/postgres (the running service's, if any).`;

class UsageError extends Error {}

type Command = { run(sql: Sql): Promise<number> };

function parse(argv: string[]): Command | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { name: { type: "string" }, scope: { type: "string", multiple: true }, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === "help") return "help";
  const noExtra = (allowed: string[]) => {
    const given = Object.keys(values).filter((k) => !allowed.includes(k));
    if (given.length) throw new UsageError(`${command} takes no --${given.join(", --")}`);
  };
  switch (command) {
    case "create": {
      if (rest.length) throw new UsageError(`create takes no arguments besides --name and --scope (got ${rest.join(" ")})`);
      if (!values.name) throw new UsageError("create needs --name <name>");
      if (!values.scope?.length) throw new UsageError(`create needs --scope (one of: ${SCOPES.join(", ")})`);
      const o = { name: values.name, scopes: values.scope };
      return { run: (sql) => create(sql, o) };
    }
    case "list":
      noExtra([]);
      if (rest.length) throw new UsageError("list takes no arguments");
      return { run: list };
    case "revoke": {
      noExtra([]);
      if (rest.length !== 1) throw new UsageError("revoke needs exactly one <id|prefix>");
      const target = rest[0]!;
      return { run: (sql) => revoke(sql, target) };
    }
    case undefined:
      throw new UsageError("no command given");
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function create(sql: Sql, o: { name: string; scopes: string[] }): Promise<number> {
  let created;
  try {
    created = await createApiKey(sql, o);
  } catch (err) {
    if (err instanceof ApiKeyInputError) throw new UsageError(err.message);
    throw err;
  }
  const { key, record } = created;
  console.log(`created API key "${clean(record.name)}"`);
  console.log(`  id:     ${record.id}`);
  console.log(`  prefix: ${record.prefix}`);
  console.log(`  scopes: ${record.scopes.join(",") || "-"}`);
  console.log(`  key:    ${key}`);
  console.error("\nStore the key now: it is not shown again and cannot be recovered (only its hash is kept).");
  return 0;
}

const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, " ");
const when = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");

function table(rows: ApiKeyRecord[]): string {
  const head = ["id", "name", "prefix", "scopes", "created", "last used", "revoked"];
  const cells = rows.map((r) => [r.id, clean(r.name), r.prefix, r.scopes.join(",") || "-", when(r.createdAt), when(r.lastUsedAt), when(r.revokedAt)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [head, ...cells].map((line) => line.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

async function list(sql: Sql): Promise<number> {
  const rows = await listApiKeys(sql);
  console.log(rows.length ? table(rows) : "no API keys yet (bun run keys create --name <name> --scope launch)");
  return 0;
}

async function revoke(sql: Sql, target: string): Promise<number> {
  const record = await revokeApiKey(sql, target);
  if (!record) {
    console.error(`no API key with id or prefix "${clean(target)}" (see bun run keys list)`);
    return 1;
  }
  console.log(`revoked ${record.prefix} "${clean(record.name)}" (${record.id}) at ${when(record.revokedAt)}`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  let command: Command | "help";
  try {
    command = parse(argv);
  } catch (err) {
    console.error(`keys: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (command === "help") {
    console.log(USAGE);
    return 0;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 2;
  }
  const pg = await openPostgresOrSay(config, "keys");
  if (!pg) return 1;
  try {
    return await command.run(pg.sql);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`keys: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`keys: ${(err as Error).message}`);
    return 1;
  } finally {
    await pg.stop();
  }
}

process.exit(await main(process.argv.slice(2)));
