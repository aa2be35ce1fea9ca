import type { SharedSecretRepository } from "../../../app/ports/shared-secret-repository.js";

export class MemorySharedSecretRepository implements SharedSecretRepository {
  private readonly secrets = new Map<string, string>();

  async obtain(name: string, candidate: string): Promise<string> {
    const stored = this.secrets.get(name);
    if (stored !== undefined) return stored;
    this.secrets.set(name, candidate);
    return candidate;
  }
}
