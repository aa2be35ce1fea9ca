import type { FunctionComponent } from "preact";
import type { Route } from "../router.js";
import { CatalogPage } from "./catalog.js";
import { DiscoveryPage } from "./discovery.js";
import { FleetPage } from "./fleet.js";
import { PlaygroundPage } from "./playground.js";

/** A page of the console: its place in the navigation and what it needs to be shown. */
export interface PageEntry {
  /** The first part of its location (`#/fleet/...`). */
  readonly id: string;
  readonly title: string;
  /** The REST route (`METHOD /path`) the page cannot work without: hidden from a caller who may not use it. */
  readonly needs?: string;
  readonly component: FunctionComponent<{ route: Route }>;
}

/** The console's pages, in the navigation's order. */
export const PAGES: readonly PageEntry[] = [
  { id: "fleet", title: "Fleet", needs: "GET /mcp_servers/", component: FleetPage },
  { id: "playground", title: "Playground", needs: "GET /mcp_servers/:id/tools", component: PlaygroundPage },
  { id: "discovery", title: "Discovery", needs: "GET /discovery/sources", component: DiscoveryPage },
  { id: "catalog", title: "Catalog", needs: "GET /catalog/", component: CatalogPage },
];
