/**
 * `discovery` (decided in spec document 3): automatic registration of servers found by Docker
 * labels, Kubernetes annotations, files and installed packages.
 */
import * as z from "zod";
import {
  addError,
  bool,
  intBetween,
  isPlainObject,
  nonBlank,
  oneOf,
  rule,
  section,
  stringList,
} from "./primitives.js";
import { forwardIssues } from "./tool-policy.js";

export const DISCOVERY_SOURCE_TYPES = ["docker", "kubernetes", "filesystem", "entrypoint"] as const;
export type DiscoverySourceType = (typeof DISCOVERY_SOURCE_TYPES)[number];

const common = {
  mode: oneOf(["additive", "authoritative"]).default("additive"),
  enabled: bool().default(true),
};

const sourceSchemas = {
  // Absent socket_path: the container runtime's own default (Docker's or Podman's socket).
  docker: z.strictObject({ type: z.literal("docker"), ...common, socket_path: nonBlank().optional() }),
  kubernetes: z.strictObject({
    type: z.literal("kubernetes"),
    ...common,
    // Empty: every namespace the service account may list.
    namespaces: stringList("namespaces").default(() => []),
    label_selector: nonBlank().optional(),
    // Absent: the in-cluster service account. A kubeconfig file (and optionally one of its contexts)
    // for a gateway running outside the cluster.
    kubeconfig: nonBlank("must be a non-empty file path").optional(),
    context: nonBlank().optional(),
  }),
  filesystem: z.strictObject({
    type: z.literal("filesystem"),
    ...common,
    path: nonBlank("must be a non-empty directory path"),
    pattern: nonBlank().default("*.yaml"),
  }),
  entrypoint: z.strictObject({
    type: z.literal("entrypoint"),
    ...common,
    node_modules: nonBlank().default("./node_modules"),
  }),
} as const;

export type DiscoverySource = z.output<(typeof sourceSchemas)[DiscoverySourceType]>;

function isSourceType(value: unknown): value is DiscoverySourceType {
  return (DISCOVERY_SOURCE_TYPES as readonly unknown[]).includes(value);
}

const sourcesSchema = z
  .array(z.unknown(), rule("must be a list of sources (a bare mapping is refused)"))
  .transform((items, ctx) => {
    const sources: DiscoverySource[] = [];
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (!isPlainObject(item)) {
        addError(ctx, [index], "must be a mapping with a type");
        return;
      }
      if (!isSourceType(item.type)) {
        addError(
          ctx,
          [index, "type"],
          item.type === undefined
            ? `is required (one of ${DISCOVERY_SOURCE_TYPES.join(", ")})`
            : `must be one of ${DISCOVERY_SOURCE_TYPES.join(", ")}`,
        );
        return;
      }
      if (seen.has(item.type)) {
        // Source ids derive from the type (stable across restarts), so two would collide.
        addError(ctx, [index, "type"], `repeats the ${item.type} source: each source type may appear once`);
        return;
      }
      seen.add(item.type);
      const parsed = sourceSchemas[item.type].safeParse(item);
      if (parsed.success) sources.push(parsed.data);
      else forwardIssues(ctx, parsed.error.issues, [index]);
    });
    return sources;
  });

export const discoverySchema = section({
  enabled: bool().default(false),
  refresh_interval_s: intBetween(5, 86_400).default(60),
  auto_register: bool().default(true),
  quarantine_on_failure: bool().default(true),
  max_servers_per_source: intBetween(1, 10_000).default(100),
  max_registrations_per_minute: intBetween(1, 10_000).default(10),
  sources: sourcesSchema.default(() => []),
});
