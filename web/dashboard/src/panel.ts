/**
 * A section of the page fed by public reads. Each load shows "Loading…" (and marks the
 * section busy), then the rendered content, a note when there is nothing to show, or the
 * failure with a Retry button. A newer load cancels the one in flight, so a quick switch of
 * range or coin never shows an older answer.
 */
import { ApiFailure } from "./api";
import { el } from "./dom";

/**
 * What a render gives back: nothing to show (a note for the reader), or content, with what to
 * do once it is in the page (charts measure their container) giving back what undoes it.
 */
export type Rendered = { empty: string } | { node: Node; mount?: () => () => void };

/** One mount of several (a section with more than one chart). */
export const mountAll = (mounts: (() => () => void)[]) => () => {
  const undo = mounts.map((m) => m());
  return () => undo.forEach((u) => u());
};

export class Panel {
  private readonly status: HTMLElement;
  private readonly body: HTMLElement;
  private inFlight: AbortController | null = null;
  private dispose: (() => void) | undefined;

  /** `section` holds a `.status` and a `.body` element (index.html); `what` names its content in failures. */
  constructor(
    private readonly section: HTMLElement,
    private readonly what: string,
  ) {
    const status = section.querySelector<HTMLElement>(":scope > .status");
    const body = section.querySelector<HTMLElement>(":scope > .body");
    if (!status || !body) throw new Error(`section #${section.id} has no .status or .body`);
    this.status = status;
    this.body = body;
  }

  /** Reads, then renders; failures are shown in the section, never thrown. */
  async load<T>(read: (signal: AbortSignal) => Promise<T>, render: (data: T) => Rendered): Promise<void> {
    this.inFlight?.abort();
    const controller = new AbortController();
    this.inFlight = controller;
    this.section.setAttribute("aria-busy", "true");
    this.show("loading", "Loading…");
    try {
      const data = await read(controller.signal);
      if (controller.signal.aborted) return;
      const out = render(data);
      this.clear();
      if ("empty" in out) this.show("empty", out.empty);
      else {
        this.body.append(out.node);
        this.dispose = out.mount?.();
        this.show("ready", "");
      }
    } catch (e) {
      if (controller.signal.aborted) return;
      this.clear();
      const why = e instanceof ApiFailure ? e.describe() : e instanceof Error ? e.message : String(e);
      this.show("error", `Could not load ${this.what}. ${why}`);
      this.status.append(" ", el("button", { type: "button", class: "retry" }, "Retry"));
      this.status.querySelector("button")!.addEventListener("click", () => void this.load(read, render));
    } finally {
      if (this.inFlight === controller) {
        this.inFlight = null;
        this.section.removeAttribute("aria-busy");
      }
    }
  }

  private clear() {
    this.dispose?.();
    this.dispose = undefined;
    this.body.replaceChildren();
  }

  private show(state: "loading" | "empty" | "ready" | "error", text: string) {
    this.section.dataset.state = state;
    // an alert is announced at once; the rest politely
    this.status.setAttribute("role", state === "error" ? "alert" : "status");
    this.status.hidden = state === "ready";
    this.status.textContent = text;
  }
}
