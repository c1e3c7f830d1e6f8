/**
 * One decision cycle of one agent: gather its context, call the model (retried with
 * backoff on failures that may pass), record the cost, and turn each tool call into its
 * action, every step a stdout line. Public actions pass the firewall and go to the
 * activity table; airdrops, contests and buybacks become proposals (waiting for the
 * operator when supervised, approved within the limits when autonomous; a later issue
 * executes them). Nothing here throws for the provider's sake: failures are error lines.
 */
import type { Sql } from "../../infra/postgres";
import type { CatalogModel } from "../../infra/config";
import type { Firewall } from "../../api/firewall/firewall";
import { retry, type RetryPolicy } from "../../infra/retry";
import { capabilitiesOf, jobOf } from "../../api/daemons/catalog";
import { personaView } from "../../api/daemons/service";
import * as store from "../../api/daemons/store";
import { costMicros, describeError, modelOf, retryable, type Completion, type ModelProvider } from "./provider";
import { parseToolCall, solText, toolDefinitions, toolsFor, type Intent } from "./tools";
import { cycleMessages } from "./prompt";
import { activityRow, publishedLine, speechFields, type SpeechIntent } from "./publish";
import type { ActivityWriter } from "./activity-writer";

/** Market facts and recent public activity of a coin (the Data API's reads); null / [] when unknown. */
export type MarketReader = { facts(mint: string): Promise<unknown | null>; activity(mint: string): Promise<unknown[]> };

export type CycleDeps = {
  sql: Sql;
  /** where public actions go (the ClickHouse `activity` table, batched) */
  activity: ActivityWriter;
  provider: ModelProvider;
  models: readonly CatalogModel[];
  firewall: Firewall;
  market: MarketReader;
  /** retries of the model call within one cycle */
  retry: RetryPolicy;
  /** timeout of one model call */
  callTimeoutMs: number;
  /** how long a proposal waits for its operator */
  proposalTtlMs?: number;
};

export type CycleResult = { ran: boolean; ok: boolean; costMicros: bigint; actions: number; errors: number };

const PROPOSAL_TTL_MS = 24 * 3600_000;
const RECENT_LINES = 10;

export async function runCycle(deps: CycleDeps, mint: string, cycle: number, signal: AbortSignal): Promise<CycleResult> {
  const { sql } = deps;
  const a = await store.agentRecord(sql, mint);
  if (!a || a.state !== "awake") return { ran: false, ok: true, costMicros: 0n, actions: 0, errors: 0 };
  const result: CycleResult = { ran: true, ok: true, costMicros: 0n, actions: 0, errors: 0 };
  const line = (kind: store.StdoutKind, body: string, meta: Record<string, unknown> = {}) => store.appendStdout(sql, mint, { kind, body, meta: { source: "runtime", cycle, ...meta } });
  const fail = async (body: string, meta: Record<string, unknown> = {}) => {
    result.errors++;
    await line("error", body, meta);
  };

  const [directives, recent, market, activity, regenerate] = await Promise.all([
    store.activeDirectives(sql, mint),
    store.stdoutPage(sql, mint, RECENT_LINES, undefined),
    deps.market.facts(mint).catch(() => null),
    deps.market.activity(mint).catch(() => []),
    sql<{ id: string; kind: string; payload: unknown }[]>`SELECT id::text, kind, payload FROM daemon_proposals WHERE mint = ${mint} AND status = 'regenerating' ORDER BY id`,
  ]);
  const capabilities = capabilitiesOf(a.template);
  const tools = toolsFor(capabilities, a.presence);
  const model = modelOf(deps.models, a.model);
  const messages = cycleMessages({
    mint, symbol: a.symbol, coinName: a.coin_name, template: a.template, job: jobOf(a.template), capabilities, autonomy: a.autonomy, tools,
    persona: personaView(a),
    directives: directives.map((d) => ({ kind: d.kind, body: d.body })),
    market, activity,
    recent: recent.map((l) => ({ kind: l.kind, body: l.body, at: l.created_at.toISOString() })),
    regenerate: regenerate.map((p) => ({ proposalId: p.id, kind: p.kind, payload: p.payload })),
    now: new Date().toISOString(),
  });
  await line("thinking", `Thinking with ${model.id} (${deps.provider.name}): ${directives.length} directive(s), ${market ? "market facts" : "no market facts"}, ${recent.length} recent line(s).`, { model: model.id, provider: deps.provider.name });

  let completion: Completion;
  let attempts = 0;
  try {
    completion = await retry(
      () => {
        attempts++;
        return deps.provider.complete({ model: model.id, messages, tools: toolDefinitions(tools), signal, timeoutMs: deps.callTimeoutMs });
      },
      { ...deps.retry, shouldRetry: (err) => retryable(err) && !signal.aborted, signal },
    );
  } catch (err) {
    result.ok = false;
    await fail(`The model call failed: ${signal.aborted ? "the cycle timed out" : describeError(err)}.`, { attempts });
    return result;
  }

  const content = completion.content?.trim();
  const names = completion.toolCalls.map((c) => c.name.slice(0, 64));
  if (completion.usage) result.costMicros = costMicros(completion.usage, model);
  // the cost, the model's reply and its decision: one commit
  await store.inTx(sql, async (tx) => {
    if (completion.usage)
      await store.recordSpend(tx, mint, {
        kind: "spend",
        usdMicros: result.costMicros,
        what: `decision cycle ${cycle}: ${model.id} via ${deps.provider.name}, ${completion.usage.promptTokens} prompt + ${completion.usage.completionTokens} completion tokens`,
      });
    if (content) {
      const hit = deps.firewall.check([{ field: "thinking", text: content }]);
      await store.appendStdout(tx, mint, { kind: "thinking", body: hit ? "(the model's reasoning is withheld: the safety filter blocked it)" : content.slice(0, 1000), meta: { source: "model", cycle } });
    }
    await store.appendStdout(tx, mint, {
      kind: "decision",
      body: names.length ? `Chose: ${names.join(", ")}.` : "Chose to do nothing this cycle.",
      meta: { source: "runtime", cycle, tools: names, costMicros: result.costMicros.toString(), usage: completion.usage, model: model.id, provider: deps.provider.name },
    });
  });

  const proposed: { id: string; kind: string }[] = [];
  for (const [i, call] of completion.toolCalls.entries()) {
    const parsed = parseToolCall(call, tools);
    if (!parsed.ok) {
      await fail(`Refused the model's ${names[i]} call: ${parsed.problem}.`, { tool: names[i] });
      continue;
    }
    try {
      const done = await act(deps, a, parsed.intent, { cycle, index: i, model: model.id });
      if ("error" in done) await fail(done.error, { tool: call.name });
      else {
        result.actions++;
        if (typeof done.meta.proposalId === "string") proposed.push({ id: done.meta.proposalId, kind: String(done.meta.proposalKind) });
        await line("action", done.body, { tool: call.name, ...done.meta });
      }
    } catch (err) {
      await fail(`The ${call.name} action failed: ${String((err as Error)?.message ?? err).slice(0, 200)}.`, { tool: call.name });
    }
  }
  for (const old of regenerate) {
    const next = proposed.find((p) => p.kind === old.kind);
    if (next) proposed.splice(proposed.indexOf(next), 1);
    const [marked] = await sql`UPDATE daemon_proposals SET status = 'regenerated', replaced_by = ${next?.id ?? null} WHERE id = ${old.id} AND status = 'regenerating' RETURNING id`;
    if (!marked) continue;
    if (next) await line("action", `Made proposal ${old.id} (${old.kind}) again as proposal ${next.id}, as the operator asked.`, { change: "proposal.regenerated", proposalId: old.id, replacedBy: next.id });
    else await fail(`Could not make proposal ${old.id} (${old.kind}) again: the model proposed no new ${old.kind}.`, { change: "proposal.regenerated", proposalId: old.id, replacedBy: null });
  }
  return result;
}

type Done = { body: string; meta: Record<string, unknown> } | { error: string };
const PROPOSAL_KIND = { propose_airdrop: "airdrop", propose_contest: "contest", propose_buyback: "buyback" } as const;

async function act(deps: CycleDeps, a: store.AgentRecord, intent: Intent, at: { cycle: number; index: number; model: string }): Promise<Done> {
  if (intent.tool === "post" || intent.tool === "lore" || intent.tool === "poll" || intent.tool === "decision") {
    const speech: SpeechIntent = intent;
    const hit = deps.firewall.check(speechFields(speech));
    if (hit) return { error: `The safety filter blocked a ${speech.tool} (${hit.field}): ${hit.reason}.` };
    const id = `${speech.tool}:${a.mint}:${at.cycle}.${at.index}`;
    await deps.activity.write(activityRow(a.mint, id, new Date(), speech, { cycle: at.cycle, model: at.model }));
    return { body: publishedLine(speech), meta: { activityId: id } };
  }
  const kind = PROPOSAL_KIND[intent.tool];
  const autonomous = a.autonomy === "autonomous";
  const payload = proposalPayload(intent, at.cycle);
  const p = await store.createProposal(deps.sql, a.mint, {
    kind,
    payload,
    expiresAt: new Date(Date.now() + (deps.proposalTtlMs ?? PROPOSAL_TTL_MS)),
    approvedBy: autonomous ? "agent" : undefined,
  });
  const what = proposalText(intent);
  return {
    body: autonomous
      ? `Queued ${what} within the limits (proposal ${p.id}); it runs once ${kind}s are executed.`
      : `Proposed ${what} (proposal ${p.id}), waiting for the operator's approval.`,
    meta: { proposalId: p.id.toString(), proposalKind: kind, status: p.status },
  };
}

function proposalPayload(i: Extract<Intent, { lamports: bigint }>, cycle: number): Record<string, unknown> {
  switch (i.tool) {
    case "propose_airdrop":
      return { lamports: i.lamports.toString(), holders: i.holders, note: i.note, cycle };
    case "propose_contest":
      return { lamports: i.lamports.toString(), winners: i.winners, endsInMinutes: i.endsInMinutes, note: i.note, cycle };
    case "propose_buyback":
      return { lamports: i.lamports.toString(), note: i.note, cycle };
  }
}

function proposalText(i: Extract<Intent, { lamports: bigint }>): string {
  switch (i.tool) {
    case "propose_airdrop":
      return `an airdrop of ${solText(i.lamports)} SOL to the top ${i.holders} holders`;
    case "propose_contest":
      return `a contest of ${solText(i.lamports)} SOL for ${i.winners} winner(s), ending in ${i.endsInMinutes} minutes`;
    case "propose_buyback":
      return `a buyback of ${solText(i.lamports)} SOL`;
  }
}
