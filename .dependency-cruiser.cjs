// The layer rules of the architecture guide ("Rules of direction"), checked by `npm run lint:deps`
// (dependency-cruiser) in CI. A forbidden import is reported by one layer rule (and by no-circular
// as well when it closes a cycle). Paths are relative to the directory cruised from: `src/...` for
// the project's modules, `node_modules/...` for packages, the bare name (`fs`, `events`) for Node's
// built-in modules. test/architecture/layer-rules.test.ts breaks every rule in a fixture tree.
//
// Layers, inside out: domain <- app <- adapters, edges, control <- composition <- cli.ts.
// `config` is read by composition only.

/** Helpers of one adapter family that others may use: plain functions that implement no port. */
const SHARED_ADAPTER_HELPERS = [
  "^src/adapters/net/read-body[.]ts$",
  "^src/adapters/net/post-json[.]ts$",
  "^src/adapters/system/ensure-directory[.]ts$",
];

/** Sub-folders every mode of a family shares: one session over the MCP SDK, one Kysely store. */
const SHARED_WITHIN_FAMILY = ["^src/adapters/upstream/session/", "^src/adapters/store/sql/"];

/**
 * Only the `importer` folder (and `folder` itself) may import `folder`. An import from domain is left
 * to domain-imports-only-domain, so that every forbidden import is reported once.
 */
function onlyImportedBy(name, folder, importer, comment) {
  return {
    name,
    comment,
    severity: "error",
    from: { pathNot: [`^src/${folder}/`, importer, "^src/domain/"] },
    to: { path: `^src/${folder}/` },
  };
}

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-imports-only-domain",
      comment:
        "Rule 1: domain is pure TypeScript. It imports nothing of the project but itself, no node:* " +
        "module and no package.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { pathNot: "^src/domain/" },
    },
    {
      name: "app-imports-no-node-builtin",
      comment: "Rule 2: no node:fs, node:net, node:events ... in app; what needs Node is a port.",
      severity: "error",
      from: { path: "^src/app/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "app-imports-no-package-but-zod",
      comment: "Rule 2: no fastify, pg, ioredis, MCP SDK ... in app; zod describes operation inputs.",
      severity: "error",
      from: { path: "^src/app/" },
      to: { path: "(^|/)node_modules/", pathNot: "(^|/)node_modules/zod/" },
    },
    onlyImportedBy(
      "only-composition-imports-adapters",
      "adapters",
      "^src/composition/",
      "Rules 2, 4 and 5: only composition constructs concrete adapters; app, edges and control see ports.",
    ),
    onlyImportedBy(
      "only-composition-imports-edges",
      "edges",
      "^src/composition/",
      "Rules 2 and 3: inbound adapters are wired by composition; nothing else reaches into them.",
    ),
    onlyImportedBy(
      "only-composition-imports-control",
      "control",
      "^src/composition/",
      "The replica's loops are started by composition; they import app and domain, nobody imports them.",
    ),
    onlyImportedBy(
      "only-composition-imports-config",
      "config",
      "^src/composition/",
      "The configuration reaches the rest as plain settings handed over by composition.",
    ),
    onlyImportedBy(
      "only-cli-imports-composition",
      "composition",
      "^src/cli[.]ts$",
      "Composition wires everything; only the command line entry uses it.",
    ),
    {
      name: "edges-never-hold-app-services",
      comment:
        "The edges see narrow interfaces (app/edge-services.ts), never the services whole: not even " +
        "as a type.",
      severity: "error",
      from: { path: "^src/edges/" },
      to: { path: "^src/app/services[.]ts$" },
    },
    {
      name: "edges-run-operations-through-the-runner",
      comment:
        "An edge runs operations and asks for admission through the OperationRunner composition binds " +
        "(app/operation-runner.ts); execute.ts and admit.ts give it types only.",
      severity: "error",
      from: { path: "^src/edges/" },
      to: { path: "^src/app/(execute|admit)[.]ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "nothing-imports-cli",
      comment: "cli.ts is the process entry point.",
      severity: "error",
      from: {},
      to: { path: "^src/cli[.]ts$" },
    },
    {
      name: "config-imports-no-app",
      comment:
        "config validates the file into plain values (domain types at most), before any use case exists.",
      severity: "error",
      from: { path: "^src/config/" },
      to: { path: "^src/app/" },
    },
    {
      name: "adapters-import-only-ports-of-app",
      comment: "Rule 3: adapters implement ports; of app they import app/ports only, never a use case.",
      severity: "error",
      from: { path: "^src/adapters/" },
      to: { path: "^src/app/", pathNot: "^src/app/ports/" },
    },
    {
      name: "adapters-not-to-another-family",
      comment:
        "Rule 3: an adapter family (a folder of src/adapters) never imports another, except the shared " +
        "helpers listed in SHARED_ADAPTER_HELPERS.",
      severity: "error",
      from: { path: "^src/adapters/([^/]+)/" },
      to: { path: "^src/adapters/", pathNot: ["^src/adapters/$1/", ...SHARED_ADAPTER_HELPERS] },
    },
    {
      name: "adapters-not-to-a-sibling",
      comment:
        "Rule 3: within a family, one adapter (store/sqlite, upstream/docker ...) never imports another; " +
        "it may use the family's own files and the sub-folders listed in SHARED_WITHIN_FAMILY.",
      severity: "error",
      from: { path: "^src/adapters/([^/]+)/([^/]+)/" },
      to: {
        path: "^src/adapters/$1/[^/]+/",
        pathNot: ["^src/adapters/$1/$2/", ...SHARED_WITHIN_FAMILY],
      },
    },
    {
      name: "no-circular",
      comment: "Rule 6: no import cycles, type-only ones included (tsPreCompilationDeps keeps them).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "Every import resolves: an unresolved one would escape every rule above.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports are dependencies too: a cycle through types is still a cycle.
    tsPreCompilationDeps: true,
    // Paths stay `node_modules/...` where node_modules is a symbolic link.
    preserveSymlinks: true,
    doNotFollow: { path: "(^|/)node_modules/" },
    // `./x.js` resolves to `./x.ts` without a tsconfig: dependency-cruiser retries a `.js` specifier
    // with `.ts` as tsc does. tsconfig.json has no `paths`, so reading it (tsConfig) adds time, not
    // resolution; not-to-unresolvable fails if that ever changes.
    enhancedResolveOptions: {
      // Packages' `exports` maps (the MCP SDK's `@modelcontextprotocol/sdk/types.js` ...).
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
