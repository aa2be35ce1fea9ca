import { useState } from "preact/hooks";
import { messageOf } from "../components/data.js";
import { ErrorNote } from "../components/ui.js";
import { type Session, signIn } from "../session.js";

/** Sign-in with an API key, exchanged for the session cookie; the key is never kept by the page. */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key);
      setKey("");
      onSignedIn(session);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Airlock console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          required
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || key.trim() === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <ErrorNote message={error} />
      </form>
    </main>
  );
}
