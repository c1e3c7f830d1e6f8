/**
 * Anchor event-CPI: the program invokes itself with data = EVENT_IX_TAG, the 8-byte event
 * discriminator, then the Borsh-encoded event. Only the program can sign for its event
 * authority, so such an inner instruction is as trustworthy as the program itself.
 */

/** sha256("anchor:event")[0..8] read as a little-endian u64: e445a52e51cb9a1d */
export const EVENT_IX_TAG = Uint8Array.of(0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d);

export function isEventCpi(data: Uint8Array): boolean {
  if (data.length < 16) return false;
  for (let i = 0; i < 8; i++) if (data[i] !== EVENT_IX_TAG[i]) return false;
  return true;
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Hex of the 8 bytes at `offset` (fewer if the data is shorter): discriminator map keys. */
export function discriminatorHex(data: Uint8Array, offset: number): string {
  const end = Math.min(data.length, offset + 8);
  let s = "";
  for (let i = offset; i < end; i++) s += HEX[data[i]!];
  return s;
}

export function bytesToHex(bytes: ArrayLike<number>): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}
