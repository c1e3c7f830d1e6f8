/**
 * The trade history export in the OpenAPI document (api/openapi). The answer is a file
 * (CSV, NDJSON or Parquet), streamed; its columns are in api/README.md.
 */
import type { RouteDoc } from "../openapi/route";
import { ExportQuerySchema } from "./model";
import { CONTENT_TYPE } from "./service";

export const exportRoutes: RouteDoc[] = [
  {
    method: "get", path: "/v1/public/exports/trades", operationId: "exportTrades", tag: "Data API", summary: "Every trade of a range, as a file",
    description:
      "Streams every trade of the range in chain order (slot, signature, instruction), amounts as exact decimal strings equal to the Data API's. `X-Export-Until-Slot` is the highest slot stored when the export started: nothing past it is in the file, so continue with `from` = it + 1. At most `EXPORT_CONCURRENCY_PER_CLIENT` exports at once per client address.",
    query: ExportQuerySchema,
    responses: {
      200: {
        description: "the file; `Content-Disposition` names the coin and the range",
        contentTypes: {
          [CONTENT_TYPE.csv]: "format=csv: a header line, then one trade a line",
          [CONTENT_TYPE.ndjson]: "format=ndjson: one JSON object a line",
          [CONTENT_TYPE.parquet]: "format=parquet: a Parquet file",
        },
        headers: [
          { name: "X-Export-Until-Slot", description: "the highest slot stored when the export started", schema: { type: "string", pattern: "^\\d+$" } },
          { name: "Content-Disposition", description: "attachment; filename=\"trades_<mint or all>_<from>-<until slot>.<format>\"" },
        ],
      },
    },
    errors: { 400: ["VALIDATION_ERROR"], 429: ["RATE_LIMITED"] },
  },
];
