import type { SagaRecord, SagaSave, SagaSaveResult, SagaStore } from "../../../app/ports/saga-store.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemorySagaStore implements SagaStore {
  private readonly sagas = new Map<string, SagaRecord>();

  async save(saga: SagaSave, expectedVersion: number): Promise<SagaSaveResult> {
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
      throw new RangeError(`expected version must be a non-negative integer, got ${expectedVersion}`);
    }
    const current = this.sagas.get(saga.saga_id);
    if ((current?.version ?? 0) !== expectedVersion) {
      return { saved: false, current_version: current?.version ?? null };
    }
    const version = expectedVersion + 1;
    this.sagas.set(saga.saga_id, {
      saga_id: saga.saga_id,
      saga_type: saga.saga_type,
      state: jsonCopy(saga.state),
      version,
      updated_at: saga.updated_at,
    });
    return { saved: true, version };
  }

  async load(sagaId: string): Promise<SagaRecord | undefined> {
    const saga = this.sagas.get(sagaId);
    return saga && jsonCopy(saga);
  }

  async listByType(sagaType: string): Promise<SagaRecord[]> {
    return [...this.sagas.values()]
      .filter((s) => s.saga_type === sagaType)
      .sort((a, b) => byText(a.saga_id, b.saga_id))
      .map(jsonCopy);
  }

  async delete(sagaId: string): Promise<boolean> {
    return this.sagas.delete(sagaId);
  }
}
