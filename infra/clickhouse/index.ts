import { join } from "node:path";
import type { Config } from "../config";
import type { ClickHouse } from "./client";
import { createChdb } from "./chdb";
import { createClickhouseServer } from "./server";

export type { ClickHouse, Params, StreamFormat, StreamOptions } from "./client";
export { stringListLiteral } from "./client";

export async function connectClickhouse(config: Pick<Config, "clickhouseUrl" | "dataDir">): Promise<ClickHouse> {
  return config.clickhouseUrl ? createClickhouseServer(config.clickhouseUrl) : createChdb(join(config.dataDir, "clickhouse"));
}
