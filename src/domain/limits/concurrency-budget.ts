/**
 * A count of calls in progress against a limit; 0 means no limit. Over-budget calls are refused at
 * once rather than queued (spec 2 §8), so callers see back-pressure instead of latency.
 */
export class ConcurrencyBudget {
  private inUse = 0;

  constructor(public limit: number) {}

  get active(): number {
    return this.inUse;
  }

  tryAcquire(): boolean {
    if (this.limit > 0 && this.inUse >= this.limit) return false;
    this.inUse++;
    return true;
  }

  release(): void {
    if (this.inUse > 0) this.inUse--;
  }
}
