import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { messageOf } from "../components/data.js";
import { ErrorNote } from "../components/ui.js";
import { type Session, signIn } from "../session.js";

interface SignInMethods {
  auth_enabled: boolean;
  api_key: boolean;
  oidc: boolean;
}

/** Why a sign-in through the identity provider did not open a session (its callback says so). */
function providerError(): string | null {
  const error = new URLSearchParams(location.search).get("sign_in_error");
  if (error) history.replaceState(null, "", location.pathname + location.hash);
  return error;
}

/**
 * Sign-in with an API key, exchanged for the session cookie (the key is never kept by the page),
 * or through the identity provider when the gateway has one.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(providerError);
  const [busy, setBusy] = useState(false);
  const [methods, setMethods] = useState<SignInMethods | null>(null);
  useEffect(() => {
    api<SignInMethods>("GET", "/ui/sign-in").then(setMethods, () => setMethods(null));
  }, []);
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
      {methods?.oidc && (
        <p>
          <a class="button-link" href="/api/ui/oidc/login">
            Sign in with your identity provider
          </a>
        </p>
      )}
    </main>
  );
}
