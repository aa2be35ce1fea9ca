import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { api, setCsrfToken } from "./api.js";

export interface Principal {
  id: string;
  type: string;
  tenant_id: string | null;
}

/** Who is signed in, and what the API lets them do (`GET /api/ui/session`). */
export interface Session {
  auth_enabled: boolean;
  principal: Principal;
  csrf_token: string | null;
  /** `METHOD /path` of each REST route the caller may use, as the catalog writes it. */
  allowed_routes: string[];
}

export async function loadSession(): Promise<Session | null> {
  try {
    const session = await api<Session>("GET", "/ui/session");
    setCsrfToken(session.csrf_token);
    return session;
  } catch {
    return null;
  }
}

export async function signIn(apiKey: string): Promise<Session> {
  const session = await api<Session>("POST", "/ui/session", { api_key: apiKey });
  setCsrfToken(session.csrf_token);
  return session;
}

export async function signOut(): Promise<void> {
  try {
    await api("DELETE", "/ui/session");
  } finally {
    setCsrfToken(null);
  }
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("no session");
  return session;
}

/**
 * Whether the caller may use a route (`"POST /mcp_servers/:id/start"`): controls it may not use are
 * not shown. Only a courtesy: the API decides every request itself.
 */
export function useCan(): (route: string) => boolean {
  const session = useSession();
  return (route) => session.allowed_routes.includes(route);
}
