/**
 * The platform configs of the simulated world, as the rest of the platform sees
 * them: the simulator's configs (real mainnet PoolConfig bytes under made-up
 * addresses) turned into PlatformConfig entries.
 */
import { configRegistry, toPlatformConfig, type ConfigRegistry, type DecodedPoolConfig } from "../contract/configs";
import type { SimConfig } from "./world";

export function simulatedConfigRegistry(configs: SimConfig[]): ConfigRegistry {
  return configRegistry(
    configs.map((c) =>
      toPlatformConfig(
        { role: c.role, address: c.address, ticker: c.role === "stock" ? "SIMX" : null },
        c.poolConfig as DecodedPoolConfig,
        c.quoteDecimals ?? 9,
      ),
    ),
  );
}
