/**
 * Query schema of the signed-in account's routes (valibot; every problem in `details`).
 */
import * as v from "valibot";
import { cursor, intInRange } from "../public/model";

export const MyAgentsQuery = v.object({ limit: intInRange(1, 50, 20), cursor });
