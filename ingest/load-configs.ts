/**
 * Reads the platform's config accounts (and, for stock-paired configs, the quote
 * mint's decimals) and decodes them with the DBC IDL.
 */
import type { PlatformConfigEntry } from "../infra/config";
import { decodePoolConfig } from "./decoders/accounts";
import { configRegistry, toPlatformConfig, WSOL_MINT, type ConfigRegistry, type DecodedPoolConfig } from "./contract/configs";

/** SPL mint layout: decimals is the byte at offset 44. */
const MINT_DECIMALS_OFFSET = 44;

export async function loadPlatformConfigs(
  entries: readonly PlatformConfigEntry[],
  getAccounts: (addresses: string[]) => Promise<(Uint8Array | null)[]>,
): Promise<ConfigRegistry> {
  if (entries.length === 0) return configRegistry([]);
  const accounts = await getAccounts(entries.map((e) => e.address));
  const decoded = entries.map((entry, i) => {
    const data = accounts[i];
    if (!data) throw new Error(`PLATFORM_CONFIGS: config account ${entry.address} does not exist on this cluster`);
    try {
      return decodePoolConfig(data) as DecodedPoolConfig;
    } catch (err) {
      throw new Error(`PLATFORM_CONFIGS: ${entry.address} is not a DBC PoolConfig account (${(err as Error).message})`);
    }
  });
  const stockMints = [...new Set(decoded.map((d) => d.quote_mint.toBase58()).filter((m) => m !== WSOL_MINT))];
  const mintData = stockMints.length ? await getAccounts(stockMints) : [];
  const decimals = new Map(stockMints.map((m, i) => [m, mintData[i]?.[MINT_DECIMALS_OFFSET] ?? 0]));
  return configRegistry(entries.map((e, i) => toPlatformConfig(e, decoded[i]!, decimals.get(decoded[i]!.quote_mint.toBase58()) ?? 9)));
}
