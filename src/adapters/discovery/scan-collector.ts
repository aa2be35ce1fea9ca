import { quote } from "./discovered-name.js";

/**
 * Collects servers and problems of one scan, and keeps names unique: a second item asking for a
 * name already found becomes a problem line (items are offered in a stable order, so the same one
 * wins every scan).
 */
export class ScanCollector<S extends { readonly name: string }> {
  readonly servers: S[] = [];
  readonly problems: string[] = [];
  private readonly where = new Map<string, string>();

  /** Adds `server` found at `item` (a phrase such as `container "web"`), unless its name is taken. */
  add(server: S, item: string): void {
    const earlier = this.where.get(server.name);
    if (earlier !== undefined) {
      this.problems.push(`${item}: name ${quote(server.name)} is already used by ${earlier}; ignored`);
      return;
    }
    this.where.set(server.name, item);
    this.servers.push(server);
  }

  problem(line: string): void {
    this.problems.push(line);
  }
}
