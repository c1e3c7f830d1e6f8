/**
 * Borsh decoding of IDL-defined types straight into plain values, for the event hot path.
 *
 * Anchor's BorshCoder (buffer-layout) yields BN and PublicKey objects that every decoder then
 * turned into bigint (BN -> decimal string -> BigInt) and base58: about two thirds of the
 * decoding time. These readers are built once per type from the same SDK IDL, so the IDL
 * still drives every layout, and they produce the plain values directly:
 *
 *   u64 i64 u128 i128 u256 i256 -> bigint      u8 i8 u16 i16 u32 i32 f32 f64 -> number
 *   pubkey -> base58 string    bool -> boolean    string -> string    bytes -> Buffer
 *   option -> value or null    vec, array -> array    struct -> object (tuple fields "0", "1", ...)
 *   enum -> { Variant: {...fields} }
 *
 * Only well-formed data is read here. Anchor is lenient in odd ways on bad data (a u64 cut
 * short by the end of the data is read from the bytes that remain; a u8 past the end throws),
 * so a reader gives up on anything out of range or invalid and `TypeDecoder.decode` hands the
 * data to Anchor, converting its result the same way: malformed data decodes, or fails with
 * the same message, exactly as before. Types the readers do not cover (generics) always go
 * to Anchor. borsh-reader.test.ts checks all of this against Anchor for every IDL type.
 */
import { BN, type BorshCoder, type Idl } from "@coral-xyz/anchor";
import type { IdlDefinedFields, IdlField, IdlType, IdlTypeDef } from "@coral-xyz/anchor/dist/cjs/idl";
import { PublicKey } from "@solana/web3.js";
import { encodeBase58 } from "./base58";

// The data is copied into one reused buffer with a DataView over it: a DataView over the
// instruction bytes themselves would cost two objects per event (a typed array only gets
// its ArrayBuffer object when asked for it).
let scratch = Buffer.alloc(1024);
let scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);

/** Where a reader is in the data (a copy of it in `scratch`). */
class Cursor {
  readonly bytes: Buffer;
  readonly view: DataView;
  readonly end: number;
  pos: number;

  constructor(data: Uint8Array, offset: number) {
    if (scratch.length < data.length) {
      scratch = Buffer.alloc(data.length * 2);
      scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);
    }
    scratch.set(data);
    this.bytes = scratch;
    this.view = scratchView;
    this.end = data.length;
    this.pos = offset;
  }

  /** Position of the next `n` bytes, advancing past them. */
  take(n: number): number {
    const at = this.pos;
    if (at + n > this.end) throw new NotPlain("past the end");
    this.pos = at + n;
    return at;
  }
}

/** The data is not plainly well-formed: leave it to Anchor. */
class NotPlain extends Error {}

type Reader = (c: Cursor) => unknown;

/** Little-endian unsigned integer of `words` 64-bit words. */
function bigLE(c: Cursor, words: number): bigint {
  const at = c.take(words * 8);
  let v = 0n;
  for (let w = words - 1; w >= 0; w--) v = (v << 64n) | c.view.getBigUint64(at + w * 8, true);
  return v;
}

const PRIMITIVES: Record<string, Reader> = {
  bool: (c) => {
    const b = c.bytes[c.take(1)];
    if (b === 0) return false;
    if (b === 1) return true;
    throw new NotPlain("bool");
  },
  u8: (c) => c.bytes[c.take(1)],
  i8: (c) => c.view.getInt8(c.take(1)),
  u16: (c) => c.view.getUint16(c.take(2), true),
  i16: (c) => c.view.getInt16(c.take(2), true),
  u32: (c) => c.view.getUint32(c.take(4), true),
  i32: (c) => c.view.getInt32(c.take(4), true),
  f32: (c) => c.view.getFloat32(c.take(4), true),
  f64: (c) => c.view.getFloat64(c.take(8), true),
  u64: (c) => c.view.getBigUint64(c.take(8), true),
  i64: (c) => c.view.getBigInt64(c.take(8), true),
  u128: (c) => bigLE(c, 2),
  i128: (c) => BigInt.asIntN(128, bigLE(c, 2)),
  u256: (c) => bigLE(c, 4),
  i256: (c) => BigInt.asIntN(256, bigLE(c, 4)),
  pubkey: (c) => {
    const at = c.take(32);
    return encodeBase58(c.bytes, at, at + 32);
  },
  bytes: (c) => {
    const at = c.take(c.view.getUint32(c.take(4), true));
    return Buffer.from(c.bytes.subarray(at, c.pos)); // a copy: the scratch buffer is reused
  },
  string: (c) => {
    const at = c.take(c.view.getUint32(c.take(4), true));
    // Buffer's UTF-8 decoding, as Anchor's, so invalid sequences come out the same
    return c.bytes.toString("utf-8", at, c.pos);
  },
};

/** The IDL uses something the readers do not cover: the type goes to Anchor. */
class Unsupported extends Error {}

/** Builds readers for the types of one IDL; each defined type is built once. */
class ReaderBuilder {
  private readonly built = new Map<string, Reader>();
  private readonly defs: Map<string, IdlTypeDef>;

  constructor(idl: Idl) {
    this.defs = new Map((idl.types ?? []).map((t) => [t.name, t]));
  }

  /** The reader of a defined type, or null when it uses something not covered here. */
  tryDefined(name: string): Reader | null {
    try {
      return this.defined(name);
    } catch (e) {
      if (e instanceof Unsupported) return null;
      throw e;
    }
  }

  private defined(name: string): Reader {
    const done = this.built.get(name);
    if (done) return done;
    const def = this.defs.get(name);
    if (def === undefined || def.generics) throw new Unsupported(name);
    // a recursive type finds this forwarder while its own reader is being built
    let reader: Reader | undefined;
    this.built.set(name, (c) => reader!(c));
    reader = this.typeDef(def);
    this.built.set(name, reader);
    return reader;
  }

  private typeDef(def: IdlTypeDef): Reader {
    const ty = def.type;
    if (ty.kind === "struct") return this.fields(ty.fields);
    if (ty.kind === "type") return this.type(ty.alias);
    const names = ty.variants.map((v) => v.name);
    const variants = ty.variants.map((v) => this.fields(v.fields));
    return (c) => {
      const i = c.bytes[c.take(1)]!;
      if (i >= variants.length) throw new NotPlain("enum variant");
      return { [names[i]!]: variants[i]!(c) };
    };
  }

  /** A struct body: named fields, tuple fields named "0", "1", ..., or none. */
  private fields(fields: IdlDefinedFields | undefined): Reader {
    const list = fields ?? [];
    const named = list.length > 0 && typeof list[0] === "object" && "name" in (list[0] as object);
    const names = named ? (list as IdlField[]).map((f) => f.name) : list.map((_, i) => String(i));
    const readers = named ? (list as IdlField[]).map((f) => this.type(f.type)) : (list as IdlType[]).map((t) => this.type(t));
    const n = readers.length;
    return (c) => {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) o[names[i]!] = readers[i]!(c);
      return o;
    };
  }

  private type(t: IdlType): Reader {
    if (typeof t === "string") {
      const p = PRIMITIVES[t];
      if (p === undefined) throw new Unsupported(t);
      return p;
    }
    if ("option" in t) {
      const inner = this.type(t.option);
      return (c) => {
        const tag = c.bytes[c.take(1)];
        if (tag === 0) return null;
        if (tag === 1) return inner(c);
        throw new NotPlain("option");
      };
    }
    if ("vec" in t) {
      const item = this.type(t.vec);
      return (c) => {
        const len = c.view.getUint32(c.take(4), true);
        // more elements than bytes left is bad data (or zero-size elements): Anchor's business
        if (len > c.end - c.pos) throw new NotPlain("vec length");
        const out = new Array(len);
        for (let i = 0; i < len; i++) out[i] = item(c);
        return out;
      };
    }
    if ("array" in t) {
      const [itemType, len] = t.array;
      if (typeof len !== "number") throw new Unsupported("generic array length");
      const item = this.type(itemType);
      return (c) => {
        const out = new Array(len);
        for (let i = 0; i < len; i++) out[i] = item(c);
        return out;
      };
    }
    if ("defined" in t) {
      if (t.defined.generics) throw new Unsupported("generic arguments");
      const name = t.defined.name;
      if (!this.defs.has(name)) throw new Unsupported(name);
      return this.defined(name);
    }
    throw new Unsupported(JSON.stringify(t));
  }
}

/** Anchor's decoded value in the plain representation above. */
export function plainFromAnchor(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (BN.isBN(v)) return BigInt((v as BN).toString());
  if (v instanceof PublicKey) return encodeBase58(v.toBytes());
  if (Buffer.isBuffer(v)) return v;
  if (Array.isArray(v)) return v.map(plainFromAnchor);
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) o[k] = plainFromAnchor(x);
  return o;
}

export type TypeDecoder = {
  /** The plain value of IDL type `name` encoded at `offset`; throws (as Anchor) on malformed data. */
  decode(name: string, data: Uint8Array, offset: number): any;
  /** Only this module's readers, never Anchor: throws on anything not plainly well-formed. */
  readPlain(name: string, data: Uint8Array, offset: number): any;
};

export function buildTypeDecoder(idl: Idl, coder: BorshCoder): TypeDecoder {
  const builder = new ReaderBuilder(idl);
  const readers = new Map<string, Reader | null>();
  const readerOf = (name: string): Reader | null => {
    let r = readers.get(name);
    if (r === undefined) readers.set(name, (r = builder.tryDefined(name)));
    return r;
  };
  const anchor = (name: string, data: Uint8Array, offset: number): unknown =>
    plainFromAnchor(coder.types.decode(name, Buffer.from(data.buffer, data.byteOffset + offset, data.byteLength - offset)));
  return {
    decode(name, data, offset) {
      const reader = readerOf(name);
      if (reader === null) return anchor(name, data, offset);
      try {
        return reader(new Cursor(data, offset));
      } catch (e) {
        if (e instanceof NotPlain) return anchor(name, data, offset);
        throw e;
      }
    },
    readPlain(name, data, offset) {
      const reader = readerOf(name);
      if (reader === null) throw new Error(`${name}: not covered by the plain readers`);
      return reader(new Cursor(data, offset));
    },
  };
}
