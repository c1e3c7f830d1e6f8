/**
 * `npm run export`: a trade history export from a running API to a file, with progress on
 * stderr and a summary; resumable.
 *
 *   npm run export -- --out <file> [--mint <mint>] [--from <time|slot>] [--to <time|slot>]
 *                     [--format csv|ndjson|parquet] [--api http://localhost:3000] [--resume]
 *
 * It asks GET /v1/public/exports/trades of the API (the same limits, the same rows), so it
 * needs no engine access. Resuming (`--resume`):
 * - CSV / NDJSON: the file is continued. Its last slot's rows (maybe cut short) are dropped
 *   and asked for again, so no row is missing or twice (resume.ts).
 * - Parquet (a file is readable only once whole): each run writes a whole file, through
 *   `<out>.partial`, renamed when complete. After a complete run, `<out>.progress.json`
 *   records the next slot; `--resume` then writes the next part, `<stem>.part<N>.parquet`,
 *   from that slot. An interrupted run leaves no part and the same run is done again.
 * Exit codes: 0 done, 1 failed (the API refused, or the transfer broke off), 2 bad usage.
 */
import { parseArgs } from "node:util";
import { createWriteStream, existsSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { resumePoint } from "./resume";

const USAGE = `Trade history export.

usage:
  npm run export -- --out <file> [--mint <mint>] [--from <time|slot>] [--to <time|slot>]
                    [--format csv|ndjson|parquet] [--api <url>] [--resume]

--mint     one coin (default: every public coin)
--from     first slot, or an ISO 8601 time (default: the beginning)
--to       last slot, or an ISO 8601 time, excluded (default: the highest slot stored when the export starts)
--format   csv (default), ndjson or parquet
--api      the API's base URL (default http://localhost:3000)
--resume   continue an interrupted or finished export (CSV/NDJSON: the same file; Parquet: a new part file)
Progress goes to stderr; the summary names the slot to continue from.`;

type Args = { out: string; mint?: string; from?: string; to?: string; format: "csv" | "ndjson" | "parquet"; api: string; resume: boolean };
class UsageError extends Error {}

function parse(argv: string[]): Args | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        out: { type: "string" }, mint: { type: "string" }, from: { type: "string" }, to: { type: "string" }, format: { type: "string" },
        api: { type: "string" }, resume: { type: "boolean" }, help: { type: "boolean" },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return "help";
  if (!values.out) throw new UsageError("--out <file> is required");
  const format = values.format ?? "csv";
  if (format !== "csv" && format !== "ndjson" && format !== "parquet") throw new UsageError("--format must be csv, ndjson or parquet");
  return { out: values.out, mint: values.mint, from: values.from, to: values.to, format, api: values.api ?? "http://localhost:3000", resume: values.resume ?? false };
}

type Progress = { rows: number; bytes: number; slot: bigint | null; from: bigint | null; until: bigint | null; startedMs: number };

/** One progress line: rows (CSV/NDJSON), size, MB/s, and an ETA from how far through the slot range the last row is. */
export function progressLine(p: Progress, nowMs: number): string {
  const seconds = Math.max(0.001, (nowMs - p.startedMs) / 1000);
  const mb = p.bytes / 1e6;
  const parts = [p.rows ? `${p.rows.toLocaleString("en")} rows` : null, `${mb.toFixed(1)} MB`, `${(mb / seconds).toFixed(1)} MB/s`];
  if (p.slot !== null && p.from !== null && p.until !== null && p.until > p.from) {
    const done = Number(p.slot - p.from) / Number(p.until - p.from);
    if (done > 0.01) parts.push(`${Math.min(100, done * 100).toFixed(0)}%`, `ETA ${clock(seconds * (1 / done - 1))}`);
  }
  return parts.filter(Boolean).join("  ");
}
const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/** The next Parquet part of a resumed export, from `<out>.progress.json`. */
function nextParquetPart(out: string): { path: string; from: string; part: number } | null {
  const state = `${out}.progress.json`;
  if (!existsSync(state)) return null;
  const { nextFrom, parts } = JSON.parse(readFileSync(state, "utf8")) as { nextFrom: string; parts: number };
  const ext = extname(out);
  return { path: join(dirname(out), `${basename(out, ext)}.part${parts + 1}${ext || ".parquet"}`), from: nextFrom, part: parts + 1 };
}

export async function run(args: Args, stderr: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let from = args.from;
  let target = args.out;
  let append = false;
  let skipHeader = false;
  let part = 1;
  if (args.format === "parquet") {
    const next = args.resume ? nextParquetPart(args.out) : null;
    if (next) ({ path: target, from, part } = next);
    else if (existsSync(args.out)) throw new UsageError(`${args.out} exists: pass --resume to export what came after it, or remove it`);
  } else if (existsSync(args.out)) {
    if (!args.resume) throw new UsageError(`${args.out} exists: pass --resume to continue it, or remove it`);
    const point = resumePoint(args.out, args.format);
    truncateSync(args.out, point.keep);
    append = point.keep > 0;
    skipHeader = args.format === "csv" && append;
    if (point.from !== null) from = point.from.toString();
    stderr(`resuming ${args.out}: kept ${point.keep.toLocaleString("en")} bytes, continuing from ${from ? `slot ${from}` : "the start"}\n`);
  }

  const query = new URLSearchParams({ format: args.format });
  if (args.mint) query.set("mint", args.mint);
  if (from) query.set("from", from);
  if (args.to) query.set("to", args.to);
  const res = await fetch(`${args.api.replace(/\/$/, "")}/v1/public/exports/trades?${query}`);
  if (res.status !== 200) {
    stderr(`the API answered ${res.status}: ${await res.text()}\n`);
    return 1;
  }
  const until = BigInt(res.headers.get("x-export-until-slot") ?? "0");
  const writing = args.format === "parquet" ? `${target}.partial` : target;
  const file = createWriteStream(writing, { flags: append ? "a" : "w" });
  const p: Progress = { rows: 0, bytes: 0, slot: null, from: from && /^\d+$/.test(from) ? BigInt(from) : null, until, startedMs: Date.now() };
  const tty = process.stderr.isTTY;
  let shownAt = 0;
  let headerLeft = skipHeader;
  let carry = ""; // the current line's text so far (CSV/NDJSON), for the slot of the last row
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      let bytes = chunk;
      if (headerLeft) {
        const nl = bytes.indexOf(10);
        if (nl < 0) continue; // the header is one short line, in the first chunk
        bytes = bytes.subarray(nl + 1);
        headerLeft = false;
      }
      if (!file.write(bytes)) await new Promise((r) => file.once("drain", r));
      p.bytes += bytes.length;
      if (args.format !== "parquet") {
        for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) p.rows++;
        const lastNl = bytes.lastIndexOf(10);
        if (lastNl < 0) carry += decoder.decode(bytes);
        else {
          const prevNl = lastNl > 0 ? bytes.lastIndexOf(10, lastNl - 1) : -1;
          const last = prevNl >= 0 ? decoder.decode(bytes.subarray(prevNl + 1, lastNl)) : carry + decoder.decode(bytes.subarray(0, lastNl));
          carry = decoder.decode(bytes.subarray(lastNl + 1));
          const slot = args.format === "ndjson" ? last.match(/"slot":(\d+)/)?.[1] : last.split(",")[1];
          if (slot && /^\d+$/.test(slot)) {
            p.slot = BigInt(slot);
            p.from ??= p.slot; // without a slot to start from, the first row's slot is where the range begins
          }
        }
      }
      const now = Date.now();
      if (now - shownAt >= (tty ? 250 : 5000)) {
        shownAt = now;
        stderr(tty ? `\r${progressLine(p, now)}   ` : `${progressLine(p, now)}\n`);
      }
    }
  } catch (err) {
    await new Promise((r) => file.end(r));
    if (args.format === "parquet") rmSync(writing, { force: true });
    stderr(`\nthe export broke off (${(err as Error).message}); run the same command with --resume to continue\n`);
    return 1;
  }
  await new Promise((r) => file.end(r));
  if (args.format === "parquet") {
    renameSync(writing, target);
    writeFileSync(`${args.out}.progress.json`, JSON.stringify({ nextFrom: (until + 1n).toString(), parts: part }) + "\n");
  }
  if (args.format === "csv" && !skipHeader) p.rows = Math.max(0, p.rows - 1);
  const seconds = (Date.now() - p.startedMs) / 1000;
  stderr(
    `${tty ? "\r" : ""}wrote ${target}: ${args.format === "parquet" ? "" : `${p.rows.toLocaleString("en")} rows, `}` +
      `${(p.bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s (${(p.bytes / 1e6 / Math.max(seconds, 0.001)).toFixed(1)} MB/s); ` +
      `trades up to slot ${until} (${statSync(target).size.toLocaleString("en")} bytes on disk). ` +
      `Continue later with --resume (or --from ${until + 1n}).\n`,
  );
  return 0;
}

if (import.meta.main) {
  try {
    const args = parse(process.argv.slice(2));
    if (args === "help") {
      console.log(USAGE);
      process.exit(0);
    }
    process.exit(await run(args));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`export failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
