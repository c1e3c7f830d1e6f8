/** Small DOM helpers: elements, tables, definition lists. Text only (never innerHTML): names and descriptions are user content. */

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** The element with this id, or a clear failure naming it (the page's markup and this code disagree). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no element #${id}`);
  return node as T;
}

/** A figure with a label: `<dt>label</dt><dd data-field=field>value</dd>`. */
export type Figure = { label: string; field: string; value: string; title?: string };

export function figures(items: Figure[], className = "figures"): HTMLDListElement {
  const dl = el("dl", { class: className });
  for (const f of items) dl.append(el("div", {}, el("dt", {}, f.label), el("dd", { "data-field": f.field, ...(f.title ? { title: f.title } : {}) }, f.value)));
  return dl;
}

export type Column<T> = { header: string; cell: (row: T) => Node | string; numeric?: boolean; rowHeader?: boolean };

/** A table with a caption and column headers (`scope="col"`); a column may head its rows (`scope="row"`). */
export function table<T>(caption: string, columns: Column<T>[], rows: T[], rowAttrs: (row: T) => Record<string, string> = () => ({})): HTMLTableElement {
  const head = el("tr", {}, ...columns.map((c) => el("th", { scope: "col", ...(c.numeric ? { class: "num" } : {}) }, c.header)));
  const body = rows.map((r) =>
    el("tr", rowAttrs(r), ...columns.map((c) => (c.rowHeader ? el("th", { scope: "row" }, c.cell(r)) : el("td", c.numeric ? { class: "num" } : {}, c.cell(r))))),
  );
  return el("table", {}, el("caption", {}, caption), el("thead", {}, head), el("tbody", {}, ...body));
}

/** The table of `rows`, or, when there are none, a note saying so. */
export function tableOr<T>(empty: string, caption: string, columns: Column<T>[], rows: T[], rowAttrs?: (row: T) => Record<string, string>): HTMLElement {
  return rows.length === 0 ? el("p", { class: "empty" }, empty) : table(caption, columns, rows, rowAttrs);
}

/** A long chain id (signature, address) in full in the markup, shortened on screen by CSS. */
export const chainId = (id: string, field: string) => el("code", { class: "chain-id", title: id, "data-field": field }, id);
