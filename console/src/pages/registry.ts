import type { FunctionComponent } from "preact";
import type { Route } from "../router.js";
import { AccessPage } from "./access.js";
import { ConfigPage } from "./config.js";
import { FleetPage } from "./fleet.js";
import { OverviewPage } from "./overview.js";
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
  { id: "access", title: "Access", needs: "GET /mcp_servers/:id/l7_policy", component: AccessPage },
  { id: "config", title: "Configuration", needs: "GET /config/diff", component: ConfigPage },
  { id: "replicas", title: "Replicas", needs: "GET /system/", component: ReplicasPage },
];
