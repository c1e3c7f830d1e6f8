/** The decoders' base58 is infra's (the RPC client reads token account owners with it too). */
export { decodeBase58, encodeBase58, isBase58 } from "../../infra/base58";
