/**
 * chDB's streamed reads (createChdb's `stream` and `freeChunk`): every chunk owns its
 * memory alone, so a consumer can free each one as soon as it is used (the trade export
 * does, after handing it to the socket) and the rest of the stream is still whole. For
 * Parquet that also proves the stitched footer keeps nothing of the pieces it has freed.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngines } from "../testing/engines";
import type { ClickHouse, StreamFormat } from "./client";

const ROWS = 100_000;
// small blocks: a stream of many chunks (Parquet: many pieces to stitch)
const SQL = "SELECT number AS n, toString(number * 7) AS s, repeat('x', number % 40) AS pad FROM numbers({rows:UInt32})";
const SMALL_BLOCKS = { max_block_size: 8192, preferred_block_size_bytes: 100_000 };

/** Reads a whole stream, copying each chunk and then freeing it, as the export does. */
async function readFreeing(ch: ClickHouse, format: StreamFormat) {
  const copies: Uint8Array[] = [];
  const buffers = new Set<ArrayBufferLike>();
  for await (const chunk of ch.stream(SQL, { rows: ROWS }, format, { settings: SMALL_BLOCKS })) {
    copies.push(new Uint8Array(chunk));
    buffers.add(chunk.buffer);
    ch.freeChunk!(chunk);
    expect(chunk.length).toBe(0);
  }
  return { bytes: Buffer.concat(copies), chunks: copies.length, buffers: buffers.size };
}

describe("chDB stream: chunks a consumer frees as it goes", () => {
  test("CSV: many chunks, each on its own memory; freeing each leaves every row", async () => {
    const { ch } = await testEngines();
    const { bytes, chunks, buffers } = await readFreeing(ch, "CSV");
    expect(chunks).toBeGreaterThan(5);
    expect(buffers).toBe(chunks);
    const lines = bytes.toString().trimEnd().split("\n");
    expect(lines.length).toBe(ROWS);
    expect(lines[0]).toBe('0,"0",""');
    expect(lines[ROWS - 1]).toBe(`${ROWS - 1},"${(ROWS - 1) * 7}","${"x".repeat((ROWS - 1) % 40)}"`);
  });

  test("Parquet: one file stitched from many pieces, readable after every chunk was freed", async () => {
    const { ch } = await testEngines();
    const { bytes, chunks, buffers } = await readFreeing(ch, "Parquet");
    expect(chunks).toBeGreaterThan(5);
    expect(buffers).toBe(chunks);
    const dir = mkdtempSync(join(tmpdir(), "chdb-stream-"));
    try {
      const path = join(dir, "freed.parquet");
      writeFileSync(path, bytes);
      const [meta] = await ch.query<{ groups: string; rows: string }>(
        "SELECT toString(length(row_groups)) AS groups, toString(num_rows) AS rows FROM file({path:String}, ParquetMetadata)",
        { path },
      );
      expect(Number(meta!.groups)).toBeGreaterThan(5);
      expect(meta!.rows).toBe(String(ROWS));
      const [back] = await ch.query<{ rows: string; n: string; s: string; pad: string }>(
        "SELECT toString(count()) AS rows, toString(sum(n)) AS n, toString(sum(toUInt64(s))) AS s, toString(sum(length(pad))) AS pad FROM file({path:String}, Parquet)",
        { path },
      );
      const [want] = await ch.query<{ rows: string; n: string; s: string; pad: string }>(
        `SELECT toString(count()) AS rows, toString(sum(n)) AS n, toString(sum(toUInt64(s))) AS s, toString(sum(length(pad))) AS pad FROM (${SQL})`,
        { rows: ROWS },
      );
      expect(back).toEqual(want!);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
