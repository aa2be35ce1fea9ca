/**
 * A catalogue of installable MCP servers in the shape of the MCP registry's `v0` servers API
 * (`GET /v0/servers`), reduced to what hot loading reads. Field names follow the registry's own
 * (`registryType`, `isRequired`, ...), so a reader can hold this file next to its OpenAPI document.
 */

/** An environment variable of a package, or a header of a remote (the registry's `KeyValueInput`). */
export interface RegistryInput {
  readonly name: string;
  readonly description?: string;
  /** The registry's default is false. */
  readonly isRequired: boolean;
  /** The registry's default is false. */
  readonly isSecret: boolean;
  /** A value fixed by the publisher; it may hold `{placeholders}` the client must fill in. */
  readonly value?: string;
  readonly default?: string;
}

/** A command-line argument of a package (`positional`, or `named` as `--flag=value`). */
export interface RegistryArgument {
  readonly type: "positional" | "named";
  /** The flag of a named argument, leading dashes included. */
  readonly name?: string;
  readonly value?: string;
  readonly default?: string;
  readonly valueHint?: string;
  readonly isRequired: boolean;
}

/** One way to run the server locally: a package of some package registry. */
export interface RegistryPackage {
  /** `npm`, `pypi`, `oci`, `nuget`, `mcpb`, ... */
  readonly registryType: string;
  readonly identifier: string;
  /** An exact version; absent when the publisher gave none. */
  readonly version?: string;
  /** `transport.type`: `stdio`, `streamable-http` or `sse`. */
  readonly transportType: string;
  readonly environmentVariables: readonly RegistryInput[];
  readonly packageArguments: readonly RegistryArgument[];
}

/** One hosted endpoint of the server. */
export interface RegistryRemote {
  /** `streamable-http` or `sse`. */
  readonly type: string;
  /** May hold `{placeholders}` resolved from the remote's variables. */
  readonly url: string;
  readonly headers: readonly RegistryInput[];
}

/** `_meta["io.modelcontextprotocol.registry/official"]` of one entry: what the registry itself says. */
export interface RegistryOfficialMeta {
  /** `active`, `deprecated` or `deleted`. */
  readonly status: string;
  readonly statusMessage?: string;
  readonly isLatest?: boolean;
  readonly publishedAt?: string;
  readonly updatedAt?: string;
}

/** One server version as the registry lists it. */
export interface RegistryServer {
  /** Reverse-DNS name with one slash: `io.github.owner/weather`. */
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly title?: string;
  readonly packages: readonly RegistryPackage[];
  readonly remotes: readonly RegistryRemote[];
  /** Null when the registry sent no official metadata for the entry. */
  readonly official: RegistryOfficialMeta | null;
}

/**
 * Looks servers up in an MCP registry.
 *
 * Guaranteed: `search` answers every entry the registry returned for `term` (name or description
 * containing it, case-insensitively, as the registry matches), latest versions only when the
 * registry can filter them, entries it could not read left out; it rejects with an Error whose
 * message is safe to show (it names the registry's host and what went wrong, never credentials)
 * when the registry cannot be reached or answers something else than a server list.
 * Not guaranteed: that the answer is fresh (implementations may cache it), or complete beyond the
 * pages an implementation is willing to read.
 */
export interface McpRegistry {
  search(term: string): Promise<readonly RegistryServer[]>;
}
