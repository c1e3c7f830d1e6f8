/**
 * Joins Parquet files written by the engine, one after another and all of one schema,
 * into one Parquet file, streaming: chDB's streamed query gives each block of a result
 * as a whole Parquet file ("PAR1", one row group, footer, "PAR1"), and a client needs one
 * file. The row groups' bytes are passed through untouched; only the footer (Thrift
 * compact FileMetaData) is rewritten: the row groups of every piece, their offsets moved
 * by where the piece's bytes land, and the total row count. The pieces must carry no
 * page index and no bloom filter (PARQUET_STREAM_SETTINGS), whose offsets live outside the
 * footer. Memory: the footers' row-group entries (a few hundred bytes per column and
 * block, kept encoded), never the data.
 */

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // "PAR1"

/** Thrift compact types */
const T = { TRUE: 1, FALSE: 2, BYTE: 3, I16: 4, I32: 5, I64: 6, DOUBLE: 7, BINARY: 8, LIST: 9, SET: 10, MAP: 11, STRUCT: 12 } as const;

type Field = { id: number; type: number; value: Value };
type ListValue = { elemType: number; items: Value[] };
type MapValue = { keyType: number; valType: number; entries: [Value, Value][] };
type Value = bigint | boolean | number | Uint8Array | Field[] | ListValue | MapValue;

class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.buf.length) throw new Error("Parquet footer ends early");
    return this.buf[this.pos++]!;
  }
  varint(): bigint {
    let shift = 0n, out = 0n;
    for (;;) {
      const b = this.byte();
      out |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  zigzag(): bigint {
    const n = this.varint();
    return (n >> 1n) ^ -(n & 1n);
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error("Parquet footer ends early");
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  value(type: number): Value {
    switch (type) {
      case T.TRUE: return true;
      case T.FALSE: return false;
      case T.BYTE: return this.byte();
      case T.I16: case T.I32: case T.I64: return this.zigzag();
      case T.DOUBLE: return this.bytes(8);
      case T.BINARY: return this.bytes(Number(this.varint()));
      case T.LIST: case T.SET: {
        const h = this.byte();
        const size = h >> 4 === 15 ? Number(this.varint()) : h >> 4;
        const elemType = h & 0x0f;
        const items: Value[] = [];
        for (let i = 0; i < size; i++) items.push(elemType === T.TRUE || elemType === T.FALSE ? this.byte() === T.TRUE : this.value(elemType));
        return { elemType, items };
      }
      case T.MAP: {
        const size = Number(this.varint());
        if (size === 0) return { keyType: 0, valType: 0, entries: [] };
        const kv = this.byte();
        const entries: [Value, Value][] = [];
        for (let i = 0; i < size; i++) entries.push([this.value(kv >> 4), this.value(kv & 0x0f)]);
        return { keyType: kv >> 4, valType: kv & 0x0f, entries };
      }
      case T.STRUCT: return this.struct();
      default: throw new Error(`unknown Thrift compact type ${type} in a Parquet footer`);
    }
  }
  struct(): Field[] {
    const fields: Field[] = [];
    let last = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return fields;
      const delta = h >> 4;
      const id = delta === 0 ? Number(this.zigzag()) : last + delta;
      const type = h & 0x0f;
      fields.push({ id, type, value: this.value(type) });
      last = id;
    }
  }
}

class Writer {
  private buf = new Uint8Array(1024);
  private len = 0;
  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
  byte(b: number) {
    this.room(1);
    this.buf[this.len++] = b & 0xff;
  }
  varint(n: bigint) {
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }
  zigzag(n: bigint) {
    this.varint(n >= 0n ? n << 1n : ((-n) << 1n) - 1n);
  }
  raw(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  value(type: number, v: Value) {
    switch (type) {
      case T.TRUE: case T.FALSE: return; // carried in the field header
      case T.BYTE: return this.byte(v as number);
      case T.I16: case T.I32: case T.I64: return this.zigzag(v as bigint);
      case T.DOUBLE: return this.raw(v as Uint8Array);
      case T.BINARY: this.varint(BigInt((v as Uint8Array).length)); return this.raw(v as Uint8Array);
      case T.LIST: case T.SET: {
        const l = v as ListValue;
        if (l.items.length < 15) this.byte((l.items.length << 4) | l.elemType);
        else {
          this.byte(0xf0 | l.elemType);
          this.varint(BigInt(l.items.length));
        }
        for (const item of l.items) {
          if (l.elemType === T.TRUE || l.elemType === T.FALSE) this.byte(item ? T.TRUE : T.FALSE);
          // a struct already encoded (the stitcher keeps row groups so): its bytes as they are
          else if (l.elemType === T.STRUCT && item instanceof Uint8Array) this.raw(item);
          else this.value(l.elemType, item);
        }
        return;
      }
      case T.MAP: {
        const m = v as MapValue;
        this.varint(BigInt(m.entries.length));
        if (m.entries.length === 0) return;
        this.byte((m.keyType << 4) | m.valType);
        for (const [k, val] of m.entries) {
          this.value(m.keyType, k);
          this.value(m.valType, val);
        }
        return;
      }
      case T.STRUCT: return this.struct(v as Field[]);
    }
  }
  struct(fields: Field[]) {
    let last = 0;
    for (const f of [...fields].sort((a, b) => a.id - b.id)) {
      const type = f.type === T.TRUE || f.type === T.FALSE ? (f.value ? T.TRUE : T.FALSE) : f.type;
      const delta = f.id - last;
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
      else {
        this.byte(type);
        this.zigzag(BigInt(f.id));
      }
      this.value(type, f.value);
      last = f.id;
    }
    this.byte(0);
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const field = (s: Field[], id: number) => s.find((f) => f.id === id);
const shiftField = (s: Field[] | undefined, id: number, by: bigint) => {
  const f = s && field(s, id);
  if (f) f.value = (f.value as bigint) + by;
};

/** Footer field ids (parquet.thrift) that hold file offsets. */
const FILE_META = { numRows: 3, rowGroups: 4 };
const ROW_GROUP = { columns: 1, fileOffset: 5, ordinal: 7 };
const COLUMN_CHUNK = { fileOffset: 2, metaData: 3, offsetIndexOffset: 4, columnIndexOffset: 6 };
const COLUMN_META = { dataPageOffset: 9, indexPageOffset: 10, dictionaryPageOffset: 11, bloomFilterOffset: 14 };

/**
 * One engine-written Parquet file: its row groups' bytes and its decoded footer. The footer
 * is decoded from a copy (not `slice`: on a Node Buffer it shares the memory), so nothing in
 * `meta` holds on to `file` (a footer's strings and statistics would otherwise keep every
 * piece of an export alive until its end).
 */
export function splitParquet(file: Uint8Array): { data: Uint8Array; meta: Field[] } {
  const n = file.length;
  if (n < 12 || !eq(file.subarray(0, 4), MAGIC) || !eq(file.subarray(n - 4), MAGIC)) throw new Error("not a Parquet file");
  const footerLen = new DataView(file.buffer, file.byteOffset + n - 8, 4).getUint32(0, true);
  const footerStart = n - 8 - footerLen;
  return { data: file.subarray(4, footerStart), meta: new Reader(new Uint8Array(file.subarray(footerStart, n - 8))).struct() };
}

/**
 * Engine-written Parquet files in, one Parquet file's bytes out, as they can be sent.
 * An empty input still needs one piece (the engine's file for zero rows) for the schema.
 * Each chunk out is a fresh buffer or a piece's own (a piece's data, nothing else of it
 * kept), so a consumer may free a chunk once sent (ClickHouse.freeChunk). The row groups'
 * entries are kept encoded, offsets already moved: a few KB per piece until the footer.
 */
export async function* stitchParquet(pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let first: Field[] | null = null;
  const rowGroups: Uint8Array[] = [];
  let rows = 0n;
  let pos = 4n;
  yield MAGIC.slice();
  for await (const piece of pieces) {
    const { data, meta } = splitParquet(piece);
    first ??= meta;
    const by = pos - 4n; // a piece's offsets count from its own start, where its data began at 4
    for (const rg of ((field(meta, FILE_META.rowGroups)?.value as ListValue | undefined)?.items ?? []) as Field[][]) {
      shiftField(rg, ROW_GROUP.fileOffset, by);
      const ordinal = field(rg, ROW_GROUP.ordinal);
      if (ordinal) ordinal.value = BigInt(rowGroups.length);
      for (const cc of (field(rg, ROW_GROUP.columns)!.value as ListValue).items as Field[][]) {
        shiftField(cc, COLUMN_CHUNK.fileOffset, by);
        shiftField(cc, COLUMN_CHUNK.offsetIndexOffset, by);
        shiftField(cc, COLUMN_CHUNK.columnIndexOffset, by);
        const md = field(cc, COLUMN_CHUNK.metaData)?.value as Field[] | undefined;
        for (const id of Object.values(COLUMN_META)) shiftField(md, id, by);
      }
      const w = new Writer();
      w.struct(rg);
      rowGroups.push(w.bytes());
    }
    rows += field(meta, FILE_META.numRows)!.value as bigint;
    if (data.length) {
      pos += BigInt(data.length);
      yield data;
    }
  }
  if (!first) throw new Error("no Parquet piece: the engine gives one even for zero rows");
  const out = first.filter((f) => f.id !== FILE_META.numRows && f.id !== FILE_META.rowGroups);
  out.push({ id: FILE_META.numRows, type: T.I64, value: rows });
  out.push({ id: FILE_META.rowGroups, type: T.LIST, value: { elemType: T.STRUCT, items: rowGroups } });
  const w = new Writer();
  w.struct(out);
  const footer = w.bytes();
  const tail = new Uint8Array(footer.length + 8);
  tail.set(footer, 0);
  new DataView(tail.buffer).setUint32(footer.length, footer.length, true);
  tail.set(MAGIC, footer.length + 4);
  yield tail;
}

function eq(a: Uint8Array, b: Uint8Array) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
