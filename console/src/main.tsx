import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { whenSignedOut } from "./api.js";
import { Layout } from "./components/layout.js";
import { Busy } from "./components/ui.js";
import { PAGES } from "./pages/registry.js";
import { SignInPage } from "./pages/sign-in.js";
import { navigate, useRoute } from "./router.js";
import { loadSession, type Session, SessionContext, signOut } from "./session.js";

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    void loadSession().then(setSession);
  }, []);
  if (session === undefined) return <Busy label="Loading…" />;
  if (session === null) return <SignInPage onSignedIn={setSession} />;
  // Without a location, the first page the caller may use.
  const first = PAGES.find((entry) => !entry.needs || session.allowed_routes.includes(entry.needs));
  const id = route.parts[0] ?? first?.id ?? "";
  const page = PAGES.find((entry) => entry.id === id);
  const leave = async () => {
    await signOut().catch(() => undefined);
    setSession(null);
    navigate();
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout current={id} onSignOut={leave}>
        {page ? <page.component route={route} /> : <p>No such page.</p>}
      </Layout>
    </SessionContext.Provider>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
