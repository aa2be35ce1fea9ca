/** The stored state of one saga (a multi-step process that must survive a restart). */
export interface SagaRecord {
  readonly saga_id: string;
  readonly saga_type: string;
  /** Any JSON value; read back through JSON (`undefined` members are absent). */
  readonly state: unknown;
  /** 1 after the first save, +1 on every save. */
  readonly version: number;
  /** Epoch seconds, fractional: when the last save happened (as the caller said). */
  readonly updated_at: number;
}

export interface SagaSave {
  readonly saga_id: string;
  readonly saga_type: string;
  readonly state: unknown;
  readonly updated_at: number;
}

export type SagaSaveResult =
  | { readonly saved: true; readonly version: number }
  /** `current_version` is what is stored now, or null when the saga does not exist. */
  | { readonly saved: false; readonly current_version: number | null };

/**
 * Saga state with optimistic concurrency.
 *
 * Guaranteed: `save(saga, 0)` creates and succeeds only when the saga does not exist (so it is also
 * a one-shot claim across replicas); `save(saga, n)` succeeds only when the stored version is `n`,
 * and the stored version becomes `n + 1`; of two concurrent saves with the same expected version,
 * at most one succeeds. A failed save changes nothing. An expected version that is not a
 * non-negative integer is rejected (a RangeError). Not guaranteed: anything about `saga_type`
 * beyond storing the last saved value.
 */
export interface SagaStore {
  save(saga: SagaSave, expectedVersion: number): Promise<SagaSaveResult>;
  load(sagaId: string): Promise<SagaRecord | undefined>;
  /** Sagas of one type, ordered by id. */
  listByType(sagaType: string): Promise<SagaRecord[]>;
  /** True when a saga was removed. */
  delete(sagaId: string): Promise<boolean>;
}
