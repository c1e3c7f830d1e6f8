import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";
import type { Idl } from "@coral-xyz/anchor";

/** The SDK IDLs are the single source of the program ids and layouts. */
export const DBC_IDL = DynamicBondingCurveIdl as unknown as Idl;
export const DAMM_V2_IDL = CpAmmIdl as unknown as Idl;

export const DBC_PROGRAM_ID: string = DBC_IDL.address;
export const DAMM_V2_PROGRAM_ID: string = DAMM_V2_IDL.address;
// Token program ids are fixed; @solana/spl-token is only a transitive dependency, so not imported.
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
