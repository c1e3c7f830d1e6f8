/**
 * A confirmed launch's agent, with everything the request asked: name, template and
 * category from the goal, persona, links, description, image, model and the
 * template's config. Status `launching` and state `forming` until the pool's creation
 * arrives from the chain (pipelines/agents-sink.ts completes it then); when the chain
 * was first, the launch's choices are laid over the chain's defaults.
 */
import type { Sql } from "../../infra/postgres";
import { GOAL_AGENT } from "./model";
import type { LaunchRow } from "./store";

export async function upsertLaunchAgent(sql: Sql, l: LaunchRow): Promise<void> {
  const r = l.request;
  const { template, category } = GOAL_AGENT[r.goal];
  const agentConfig = r.goal === "predict" ? { watch: r.markets ?? [] } : r.goal === "stock" ? { ticker: r.stock?.ticker } : {};
  const row = {
    mint: l.mint!,
    coin_name: r.name,
    symbol: r.symbol,
    metadata_uri: l.metadata_uri ?? "",
    image_url: l.image_url ?? "",
    description: r.description,
    name: r.agent?.name ?? null,
    template,
    category,
    presence: r.agent?.presence ?? "quiet",
    traits: sql.json(r.agent?.traits ?? []),
    drive: r.agent?.drive ?? null,
    motto: r.agent?.motto ?? null,
    model: r.model ?? null,
    agent_config: sql.json(agentConfig as never),
    links: sql.json((r.links ?? {}) as never),
    creator: l.creator,
    vault: l.vault!,
    config: l.config,
    launch_id: l.id,
  };
  await sql`
    INSERT INTO agents (mint, coin_name, symbol, metadata_uri, metadata_checked_at, image_url, description, name, template, category,
                        presence, traits, drive, motto, model, agent_config, links, status, state, creator, vault, config, launch_id)
    VALUES (${row.mint}, ${row.coin_name}, ${row.symbol}, ${row.metadata_uri}, now(), ${row.image_url}, ${row.description}, ${row.name},
            ${row.template}, ${row.category}, ${row.presence}, ${row.traits}, ${row.drive}, ${row.motto}, ${row.model},
            ${row.agent_config}, ${row.links}, 'launching', 'forming', ${row.creator}, ${row.vault}, ${row.config}, ${row.launch_id})
    ON CONFLICT (mint) DO UPDATE SET
      image_url = EXCLUDED.image_url, description = EXCLUDED.description, metadata_checked_at = now(),
      name = EXCLUDED.name, template = EXCLUDED.template, category = EXCLUDED.category, presence = EXCLUDED.presence,
      traits = EXCLUDED.traits, drive = EXCLUDED.drive, motto = EXCLUDED.motto, model = EXCLUDED.model,
      agent_config = EXCLUDED.agent_config, links = EXCLUDED.links, launch_id = EXCLUDED.launch_id, updated_at = now()`;
}
