/**
 * Owners whose token accounts never count as holders: the pools' own vaults (owned by the
 * DBC and the DAMM v2 pool authority, read from the SDK IDLs, which pin them as fixed
 * addresses: FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM and
 * HLnpSz9h2S4hiLQ43rnSD9XkcUThA7B8hQMKmDaiTLcC) and the incinerator, where coins are sent to
 * be burned without a Burn instruction.
 */
import type { Idl } from "@coral-xyz/anchor";
import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";

function poolAuthority(idl: Idl): string {
  for (const ix of idl.instructions)
    for (const a of ix.accounts as { name: string; address?: string }[]) if (a.name === "pool_authority" && a.address) return a.address;
  throw new Error(`the ${idl.metadata.name} IDL names no fixed pool_authority`);
}

export const DBC_POOL_AUTHORITY = poolAuthority(DynamicBondingCurveIdl as unknown as Idl);
export const DAMM_V2_POOL_AUTHORITY = poolAuthority(CpAmmIdl as unknown as Idl);
export const INCINERATOR = "1nc1nerator11111111111111111111111111111111";

export const NEVER_HOLDERS: readonly string[] = [DBC_POOL_AUTHORITY, DAMM_V2_POOL_AUTHORITY, INCINERATOR];
