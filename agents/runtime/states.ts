/**
 * The agent's state machine (pure): `forming` until its coin's pool is on-chain (the
 * chain pipeline moves it to asleep), `frozen` while its operator pauses it, `asleep`
 * while no model provider is configured or its budget is under $20 (the spec's limit),
 * `awake` while it can work. The reason is kept beside the state and told on stdout.
 */
import { WAKE_MICROS } from "../../api/daemons/fuel";

export type AgentState = "forming" | "asleep" | "awake" | "frozen";

export type StateInputs = {
  state: AgentState;
  paused: boolean;
  /** the budget in micro-USD; null while no SOL price is known */
  fuelMicros: bigint | null;
  /** false: no model provider configured */
  provider: boolean;
};

export type StateVerdict = { state: AgentState; reason: string };

export const usd = (micros: bigint) => `$${(Number(micros) / 1e6).toFixed(2)}`;

export const REASONS = {
  paused: "paused by its operator",
  noProvider: "no model provider is configured (MODEL_PROVIDER_URL)",
  noPrice: "its budget is unknown: no SOL price yet",
  budget: `its budget is under ${usd(WAKE_MICROS)}`,
};

export function nextState(i: StateInputs): StateVerdict {
  if (i.state === "forming") return { state: "forming", reason: "" };
  if (i.paused) return { state: "frozen", reason: REASONS.paused };
  if (!i.provider) return { state: "asleep", reason: REASONS.noProvider };
  // without a price the budget cannot be told: an awake agent keeps working, an asleep one waits
  if (i.fuelMicros === null) return i.state === "awake" ? { state: "awake", reason: "" } : { state: "asleep", reason: REASONS.noPrice };
  if (i.fuelMicros < WAKE_MICROS) return { state: "asleep", reason: REASONS.budget };
  return { state: "awake", reason: "" };
}

/** The stdout line of a move from `from` to `to`. */
export function transitionLine(from: AgentState, to: StateVerdict, fuel: bigint | null): { body: string } {
  if (to.state === "frozen") return { body: "Frozen: the operator paused the agent." };
  if (to.state === "awake") return { body: `Awake${from === "frozen" ? " again" : ""}: the budget is ${fuel === null ? "unknown" : usd(fuel)}, enough to work (at least ${usd(WAKE_MICROS)}).` };
  if (to.state === "asleep") return { body: `Asleep: ${to.reason}${to.reason === REASONS.budget && fuel !== null ? ` (${usd(fuel)} left)` : ""}.` };
  return { body: `Now ${to.state}.` };
}
