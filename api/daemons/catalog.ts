/**
 * The daemon catalog: the agent templates (the Launch API's goals make them; their category
 * is the Data API's), the capabilities each template has, the selectable models
 * (MODEL_CATALOG) and the persona's `character` choices. The runtime reads the same
 * capabilities to decide which actions and proposals a template may make.
 */
import type { CatalogModel } from "../../infra/config";
import { GOAL_AGENT, GOALS, type Goal } from "../launches/model";

/**
 * Capabilities, named `<area>.<action>`. The spec names `reward.airdrop` and
 * `program.contest` (airdrops and contests need them); the rest are ours.
 */
export const CAPABILITIES = {
  "feed.post": "publishes posts to its coin's feed",
  "feed.lore": "writes the coin's lore",
  "feed.poll": "runs polls for holders",
  "feed.decision": "publishes its decisions with their reasons",
  "treasury.buyback": "buys back and burns its coin with the vault's claimed fees",
  "reward.airdrop": "airdrops SOL to holders from the vault's claimed fees",
  "program.contest": "runs holder raffles and top-holder contests",
  "trade.swap": "opens and closes trades with its vault",
  "predict.forecast": "forecasts prediction markets it watches",
  "content.image": "makes images",
  "content.video": "makes videos",
  "stock.analysis": "publishes analyses of its tokenized stock",
  "stock.earnings_call": "calls the stock's earnings before each report",
  "gamble.gacha": "runs gacha pulls",
} as const;
export type Capability = keyof typeof CAPABILITIES;

/** What every template does. */
const COMMON: Capability[] = ["feed.post", "feed.lore", "feed.poll", "feed.decision", "treasury.buyback"];

/** Each template's job and capabilities beyond the common ones, in the spec's template order. */
const TEMPLATES: Record<string, { job: string; capabilities: Capability[] }> = {
  baseline: { job: "keeps its coin's community going: posts, lore, polls and contests", capabilities: ["program.contest"] },
  trader: { job: "trades with its vault and reports every trade", capabilities: ["trade.swap"] },
  forecaster: { job: "forecasts the prediction markets its operator chose", capabilities: ["predict.forecast"] },
  studio: { job: "makes images and videos for its coin", capabilities: ["content.image", "content.video"] },
  patron: { job: "rewards holders with airdrops and contests", capabilities: ["reward.airdrop", "program.contest"] },
  analyst: { job: "analyses one tokenized stock and calls its earnings", capabilities: ["stock.analysis", "stock.earnings_call"] },
  gambler: { job: "runs games of chance for holders", capabilities: ["gamble.gacha", "program.contest"] },
};

export const TEMPLATE_IDS = ["baseline", "trader", "forecaster", "studio", "patron", "analyst", "gambler"] as const;

/** The template's capabilities (common ones first); none for a template this catalog does not know. */
export function capabilitiesOf(template: string): Capability[] {
  const t = TEMPLATES[template];
  return t ? [...COMMON, ...t.capabilities] : [];
}

/** The template's job in words (the runtime tells the model); empty for an unknown template. */
export function jobOf(template: string): string {
  return TEMPLATES[template]?.job ?? "";
}

export const PRESENCE = ["influencer", "quiet"] as const;
export const TRAITS_MAX = 3;
/** Suggested traits (the spec gives none; an operator may write others). */
export const SUGGESTED_TRAITS = [
  "analytical", "bold", "calm", "contrarian", "curious", "generous", "loyal", "optimistic", "patient", "playful", "skeptical", "witty",
] as const;

const goalOf = (template: string): Goal => GOALS.find((g) => GOAL_AGENT[g].template === template)!;

/** GET /v1/daemons/catalog: the same for every caller until the configuration changes. */
export function catalog(models: readonly CatalogModel[]) {
  return {
    templates: TEMPLATE_IDS.map((id) => ({
      id,
      category: GOAL_AGENT[goalOf(id)].category,
      goal: goalOf(id),
      job: TEMPLATES[id]!.job,
      capabilities: capabilitiesOf(id).map((c) => ({ id: c, description: CAPABILITIES[c] })),
    })),
    models: models.map((m, i) => ({
      id: m.id,
      default: i === 0,
      // USD per million tokens (numbers: prices, not amounts of anyone's money)
      inputUsdPerMTok: m.inputMicrosPerMTok / 1e6,
      outputUsdPerMTok: m.outputMicrosPerMTok / 1e6,
    })),
    character: {
      // influencer posts publicly; quiet works behind the scenes
      presence: PRESENCE,
      traits: SUGGESTED_TRAITS,
      traitsMax: TRAITS_MAX,
    },
  };
}
