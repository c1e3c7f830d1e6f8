import { DynamicBondingCurveIdl } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";
import type { Idl } from "@coral-xyz/anchor";
import { TOKEN_PROGRAM_ID as SPL_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID as SPL_TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";

/** The SDK IDLs are the single source of the program ids and layouts. */
export const DBC_IDL = DynamicBondingCurveIdl as unknown as Idl;
export const DAMM_V2_IDL = CpAmmIdl as unknown as Idl;

export const DBC_PROGRAM_ID: string = DBC_IDL.address;
export const DAMM_V2_PROGRAM_ID: string = DAMM_V2_IDL.address;
// Token program ids from @solana/spl-token, never typed by hand (a typo derives addresses that never exist).
export const TOKEN_PROGRAM_ID: string = SPL_TOKEN_PROGRAM_ID.toBase58();
export const TOKEN_2022_PROGRAM_ID: string = SPL_TOKEN_2022_PROGRAM_ID.toBase58();
