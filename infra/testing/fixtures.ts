/**
 * Where the repository keeps its real chain fixtures (`fixtures/` at the root; see its
 * README for each file's provenance). Tests and benchmarks read them through these.
 */
import { fileURLToPath } from "node:url";

/** The fixture folder as a URL (ends with `/`). */
export const FIXTURES_URL = new URL("../../fixtures/", import.meta.url);

/** The fixture folder as a file path (ends with `/`). */
export const FIXTURES_DIR = fileURLToPath(FIXTURES_URL);
