/**
 * A FIFO of fixed capacity that drops its oldest entry to admit a new one. A ring buffer, so push
 * and shift are O(1) whatever the length; used on the event bus's synchronous path.
 */
export class BoundedQueue<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError("capacity must be a positive integer");
    this.items = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Appends `item`; returns true when the oldest entry was dropped to make room. */
  push(item: T): boolean {
    const tail = (this.head + this.count) % this.capacity;
    this.items[tail] = item;
    if (this.count < this.capacity) {
      this.count++;
      return false;
    }
    this.head = (this.head + 1) % this.capacity;
    return true;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return item;
  }

  /** Keeps, in order, only the entries `keep` accepts. */
  retain(keep: (item: T) => boolean): void {
    // Each entry is taken from the front and, when kept, put back at the end: one pass, in place.
    const total = this.count;
    for (let i = 0; i < total; i++) {
      const item = this.shift() as T;
      if (keep(item)) this.push(item);
    }
  }
}
