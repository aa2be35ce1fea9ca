import type { FunctionComponent } from "preact";
import type { Route } from "../router.js";
import { AccessPage } from "./access.js";
import { ApprovalsPage } from "./approvals.js";
import { CatalogPage } from "./catalog.js";
import { ConfigPage } from "./config.js";
import { DiscoveryPage } from "./discovery.js";
import { EventsPage } from "./events.js";
import { FleetPage } from "./fleet.js";
import { GroupsPage } from "./groups.js";
import { OverviewPage } from "./overview.js";
import { PlaygroundPage } from "./playground.js";
import { ReplicasPage } from "./replicas.js";

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
  {
    id: "overview",
    title: "Overview",
    needs: "GET /observability/metrics/history",
    component: OverviewPage,
  },
  { id: "fleet", title: "Fleet", needs: "GET /mcp_servers/", component: FleetPage },
  { id: "groups", title: "Groups", needs: "GET /groups/", component: GroupsPage },
  { id: "playground", title: "Playground", needs: "GET /mcp_servers/:id/tools", component: PlaygroundPage },
  { id: "approvals", title: "Approvals", needs: "GET /approvals", component: ApprovalsPage },
  { id: "events", title: "Events", needs: "GET /ws/events", component: EventsPage },
  { id: "discovery", title: "Discovery", needs: "GET /discovery/sources", component: DiscoveryPage },
  { id: "catalog", title: "Catalog", needs: "GET /catalog/", component: CatalogPage },
  { id: "access", title: "Access", needs: "GET /mcp_servers/:id/l7_policy", component: AccessPage },
  { id: "config", title: "Configuration", needs: "GET /config/diff", component: ConfigPage },
  { id: "replicas", title: "Replicas", needs: "GET /system/", component: ReplicasPage },
];
