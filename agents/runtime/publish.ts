/**
 * Public actions (post, lore, poll, decision) as activity rows: the ClickHouse `activity`
 * table the Data API's activity and the Application API's feed read (as launch items
 * are, pipelines/rows.ts). `text` is the line the lists show, `body` the whole text.
 * Ids name the agent, its cycle and the call, so a retried insert replaces itself.
 */
import type { ActivityRow } from "../../pipelines/rows";
import type { Intent } from "./tools";

export type SpeechIntent = Extract<Intent, { tool: "post" | "lore" | "poll" | "decision" }>;

/** The texts a public action publishes, for the firewall (field names as in the tool call). */
export function speechFields(i: SpeechIntent): { field: string; text: string }[] {
  switch (i.tool) {
    case "post":
    case "lore":
      return [{ field: `${i.tool}.text`, text: i.text }];
    case "poll":
      return [{ field: "poll.question", text: i.question }, ...i.options.map((o, n) => ({ field: `poll.options.${n}`, text: o }))];
    case "decision":
      return [{ field: "decision.summary", text: i.summary }, { field: "decision.reason", text: i.reason }];
  }
}

const firstLine = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

export function activityRow(mint: string, id: string, at: Date, i: SpeechIntent, meta: { cycle: number; model: string }): ActivityRow {
  const base = { mint, at: at.getTime(), id, kind: i.tool, links: "{}" };
  const data = { cycle: meta.cycle, model: meta.model };
  switch (i.tool) {
    case "post":
      return { ...base, text: i.text, body: i.text, data: JSON.stringify(data) };
    case "lore":
      return { ...base, text: firstLine(i.text, 280), body: i.text, data: JSON.stringify(data) };
    case "poll":
      return { ...base, text: i.question, body: i.question, data: JSON.stringify({ ...data, options: i.options }) };
    case "decision":
      return { ...base, text: i.summary, body: i.reason, data: JSON.stringify(data) };
  }
}

/** The action line telling of a published item. */
export function publishedLine(i: SpeechIntent): string {
  switch (i.tool) {
    case "post":
      return `Posted: "${i.text}"`;
    case "lore":
      return `Added lore: "${firstLine(i.text, 280)}"`;
    case "poll":
      return `Opened a poll: "${i.question}" (${i.options.join(" / ")})`;
    case "decision":
      return `Published a decision: "${i.summary}"`;
  }
}
