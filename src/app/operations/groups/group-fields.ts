import { z } from "zod";
import { isStrategyName, STRATEGY_NAMES } from "../../../domain/group/strategies.js";

/**
 * A strategy named through REST: one of the known names, refused otherwise (the configuration
 * file's fallback to round_robin with a warning is for files, which must load).
 */
export const groupStrategy = z
  .string()
  .refine(isStrategyName, { error: `must be one of ${STRATEGY_NAMES.join(", ")}` });
