/**
 * Where an interrupted CSV or NDJSON export file continues. Rows are in chain order and
 * a slot's rows are contiguous, so the file's last complete line names the last slot
 * written, but that slot's rows may be cut short: they are dropped (the file is truncated
 * where they begin) and the export continues from that slot. Only the file's tail is read.
 */
import { openSync, readSync, closeSync, fstatSync } from "node:fs";

export type LineFormat = "csv" | "ndjson";

/** The slot of one export line (null for the CSV header or a line that is not a row). */
export function slotOfLine(line: string, format: LineFormat): bigint | null {
  if (format === "ndjson") {
    try {
      const slot = (JSON.parse(line) as { slot?: unknown }).slot;
      return typeof slot === "number" || typeof slot === "string" ? BigInt(slot) : null;
    } catch {
      return null;
    }
  }
  const field = line.split(",")[1]; // signature (quoted, no commas), then slot
  return field !== undefined && /^\d+$/.test(field) ? BigInt(field) : null;
}

/**
 * `keep`: bytes of the file to keep; `from`: the slot to ask for next (null: nothing
 * usable was written, start over; `keep` then is 0).
 */
export function resumePoint(path: string, format: LineFormat, tailBytes = 1 << 20): { keep: number; from: bigint | null } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    // the last slot's rows must all be in the window read; grow it until they are
    for (let window = Math.min(size, tailBytes); ; window = Math.min(size, window * 4)) {
      const start = size - window;
      const buf = Buffer.alloc(window);
      readSync(fd, buf, 0, window, start);
      const text = buf.toString("latin1"); // one character per byte: indexes are file offsets
      let at = start === 0 ? 0 : text.indexOf("\n") + 1; // a window's first line may be cut
      const end = text.lastIndexOf("\n") + 1; // a last line without its newline is cut
      const lines: { at: number; slot: bigint | null }[] = [];
      while (at > 0 || start === 0 ? at < end : false) {
        const nl = text.indexOf("\n", at);
        lines.push({ at, slot: slotOfLine(text.slice(at, nl), format) });
        at = nl + 1;
      }
      let last = lines.length - 1;
      while (last >= 0 && lines[last]!.slot === null) last--;
      if (last < 0) {
        if (start > 0) continue;
        // nothing but (perhaps) the CSV header: keep the header, start from the beginning
        return { keep: lines.length ? (lines[1]?.at ?? end) : 0, from: null };
      }
      let first = last;
      while (first > 0 && lines[first - 1]!.slot === lines[last]!.slot) first--;
      if (first === 0 && start > 0) continue;
      return { keep: start + lines[first]!.at, from: lines[last]!.slot };
    }
  } finally {
    closeSync(fd);
  }
}
