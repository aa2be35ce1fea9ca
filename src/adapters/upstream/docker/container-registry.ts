import { randomUUID } from "node:crypto";
import type Docker from "dockerode";
import { LABELS } from "./container-config.js";
import { createEngineClient, type DockerEndpoint, engineStatus } from "./engine-client.js";

/**
 * The id of this gateway process, written as the `airlock.process` label on every container it
 * creates. Random per process, so replicas sharing one engine never sweep each other's containers.
 */
export const PROCESS_ID = randomUUID();

/** Containers created by this process and not yet known to be removed. */
const live = new Set<string>();

export function trackContainer(id: string): void {
  live.add(id);
}

export function untrackContainer(id: string): void {
  live.delete(id);
}

/** Ids of the containers this process created and has not removed yet, for diagnostics and tests. */
export function trackedContainers(): string[] {
  return [...live];
}

/** Bound on each engine request of the sweep: shutdown must not hang on a stuck engine. */
const SWEEP_REQUEST_MS = 10_000;

export interface SweepResult {
  /** Containers removed (or already gone). */
  readonly removed: string[];
  /** Containers the engine did not remove; they keep their labels for a manual clean-up. */
  readonly failed: string[];
}

/**
 * Force-removes every container this process created: those the engine lists with the labels
 * `airlock.managed=true` and `airlock.process=<PROCESS_ID>` (stopped ones included), plus any the
 * process still tracks (if the listing failed). For the shutdown path, after connections were
 * closed; never throws.
 *
 * Not guaranteed: containers of a gateway process that was killed (SIGKILL) — find them with
 * `docker ps -a --filter label=airlock.managed=true`.
 */
export async function removeProcessContainers(endpoint: DockerEndpoint): Promise<SweepResult> {
  let docker: Docker;
  try {
    docker = createEngineClient(endpoint);
  } catch {
    return { removed: [], failed: [...live] };
  }
  const ids = new Set(live);
  try {
    const listed = await docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.managed}=true`, `${LABELS.process}=${PROCESS_ID}`] },
      abortSignal: AbortSignal.timeout(SWEEP_REQUEST_MS),
    } as Docker.ContainerListOptions);
    for (const container of listed) ids.add(container.Id);
  } catch {
    // The engine cannot list: still try the containers this process knows about.
  }
  const removed: string[] = [];
  const failed: string[] = [];
  await Promise.all(
    [...ids].map(async (id) => {
      try {
        await docker
          .getContainer(id)
          .remove({ force: true, abortSignal: AbortSignal.timeout(SWEEP_REQUEST_MS) });
        removed.push(id);
        untrackContainer(id);
      } catch (error) {
        if (engineStatus(error) === 404) {
          removed.push(id);
          untrackContainer(id);
        } else failed.push(id);
      }
    }),
  );
  return { removed, failed };
}
