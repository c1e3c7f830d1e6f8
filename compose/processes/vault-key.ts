/**
 * The vault encryption key for the processes that serve the Launch API (the all-in-one and
 * `api`): on the embedded default without VAULT_ENCRYPTION_KEY, the key generated once under
 * DATA_DIR (infra/dev-vault-key.ts) is filled in, so every such process sharing that DATA_DIR
 * seals and unseals with the same key. Only these processes do it: a command-line tool
 * (webhook, backfill, keys) neither creates the key file nor talks about it.
 */
import type { Config } from "../../infra/config";
import type { Logger } from "../../infra/log";
import { withDevVaultKey } from "../../infra/dev-vault-key";
import { startStep } from "../boot";

/** `config` with the development key filled in when it applies; a bad key file ends the start (exit 1, one line). */
export function withLaunchVaultKey(config: Config, log: Logger): Promise<Config> {
  return startStep(log, "development vault key", () => withDevVaultKey(config, log));
}
