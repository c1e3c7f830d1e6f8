/**
 * Which token a swap's fees are in, from the swap event itself (every config, no registry).
 *
 * Both programs pick where a swap's fee is charged with `FeeMode::get_fee_mode(collect_fee_mode,
 * trade_direction)` (MeteoraAg/dynamic-bonding-curve state/fee.rs, MeteoraAg/damm-v2
 * programs/cp-amm state/fee.rs): a fee on the input only for a buy (quote -> base, B -> A)
 * when the pool collects in the quote token (DBC QuoteToken = 0; DAMM v2 OnlyB = 1,
 * Compounding = 2); otherwise on the output, which for a buy is the coin (DBC OutputToken = 1,
 * DAMM v2 BothToken = 0: `fees_on_base_token` / `fees_on_token_a`) and for a sell the quote.
 *
 * A fee taken from the input shows in the event: the swap result's excluded_fee_input_amount
 * is included_fee_input_amount less the fees (legacy DBC EvtSwap: actual_input_amount below
 * amount_in). So a buy whose input is whole paid its fees in the coin, unless it paid none.
 */
export function feesIn(side: "buy" | "sell", feesOnInput: boolean, fees: bigint): "quote" | "base" {
  return side === "buy" && !feesOnInput && fees > 0n ? "base" : "quote";
}
