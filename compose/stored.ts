/**
 * The pipelines' gate as ingest's `StoredSignatures`: backfill and reconciliation
 * ask it which signatures to skip without importing the pipelines themselves.
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { StoredSignatures } from "../ingest/contract/bus";
import { completedSignatures } from "../pipelines/gate";

export function storedSignatures(engines: { ch: ClickHouse; sql: Sql }): StoredSignatures {
  return (items) => completedSignatures(engines.ch, engines.sql, items);
}
