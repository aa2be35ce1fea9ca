import type { ComponentChildren } from "preact";
import { PAGES } from "../pages/registry.js";
import { href } from "../router.js";
import { useCan, useSession } from "../session.js";

/** The frame of every page: navigation, who is signed in, and the banner when authentication is off. */
export function Layout(props: { current: string; onSignOut: () => void; children: ComponentChildren }) {
  const session = useSession();
  const can = useCan();
  const pages = PAGES.filter((page) => !page.needs || can(page.needs));
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Airlock</span>
        <nav aria-label="console">
          <ul>
            {pages.map((page) => (
              <li key={page.id}>
                <a href={href(page.id)} aria-current={page.id === props.current ? "page" : undefined}>
                  {page.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {session.principal.id}
            {session.principal.tenant_id && <span class="muted"> ({session.principal.tenant_id})</span>}
          </span>
          {session.auth_enabled && (
            <button type="button" onClick={props.onSignOut}>
              Sign out
            </button>
          )}
        </div>
      </header>
      {!session.auth_enabled && (
        <p class="banner" role="note">
          Authentication is off: anyone who can reach this gateway can do everything shown here.
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
