/**
 * `header_exposure` (spec 2 "header_exposure and headers"): which tools may expose parameters as
 * `Mcp-Param-*` request headers, where intermediaries (proxies, load balancers, their logs) read
 * them. A tool whose annotations are invalid is always withheld; one whose annotation matches
 * `deny_annotated` is handled by `on_violation`.
 */
import { fnmatch } from "./fnmatch.js";
import { scanHeaderAnnotations } from "./param-headers.js";

/** `warn` serves and logs; `withdraw` hides the tool; `refuse_boot` refuses to serve it. */
export type ExposureAction = "warn" | "withdraw" | "refuse_boot";

/** One `header_exposure` block, as declared on a server, a group or a group member. */
export interface HeaderExposureBlock {
  /** Globs matched case-insensitively against the `x-mcp-header` token and the property path. */
  readonly deny_annotated: readonly string[];
  readonly on_violation: ExposureAction;
}

export type ExposureVerdict =
  | { readonly kind: "exposed" }
  /** Annotations that break the `x-mcp-header` rules: the tool is withheld whatever the blocks say. */
  | { readonly kind: "invalid"; readonly problem: string }
  | {
      readonly kind: "denied";
      readonly action: ExposureAction;
      /** The `x-mcp-header` token and the dotted property path that matched, and the glob. */
      readonly header: string;
      readonly path: string;
      readonly pattern: string;
    };

const SEVERITY: Record<ExposureAction, number> = { warn: 0, withdraw: 1, refuse_boot: 2 };

/**
 * The verdict on a tool's input schema under every block that governs it (a group member is
 * governed by its own block and its groups'); the strictest action among the matches wins.
 */
export function exposureVerdict(
  inputSchema: unknown,
  blocks: readonly HeaderExposureBlock[],
): ExposureVerdict {
  const scan = scanHeaderAnnotations(inputSchema);
  if (!scan.ok) return { kind: "invalid", problem: scan.problem };
  let verdict: ExposureVerdict = { kind: "exposed" };
  for (const block of blocks) {
    for (const annotation of scan.annotations) {
      const path = annotation.path.join(".");
      const pattern = block.deny_annotated.find(
        (glob) => matchesFolded(annotation.name, glob) || matchesFolded(path, glob),
      );
      if (pattern === undefined) continue;
      if (verdict.kind === "denied" && SEVERITY[verdict.action] >= SEVERITY[block.on_violation]) continue;
      verdict = { kind: "denied", action: block.on_violation, header: annotation.name, path, pattern };
    }
  }
  return verdict;
}

/** Whether a verdict keeps the tool from being listed and called. */
export function withholds(verdict: ExposureVerdict): boolean {
  return verdict.kind === "invalid" || (verdict.kind === "denied" && verdict.action !== "warn");
}

function matchesFolded(text: string, glob: string): boolean {
  return fnmatch(text.toLowerCase(), glob.toLowerCase());
}
