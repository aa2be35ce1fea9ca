import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.js";
import { ActionButton } from "../../components/ui.js";

/** A name for the exported file: `airlock-config-20260101-120000.yaml`. */
function fileName(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const day = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}`;
  return `airlock-config-${day}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}.yaml`;
}

/**
 * `POST /config/export`: the running configuration as YAML (secrets redacted), offered as a
 * download made in the page (a Blob URL, released when replaced or when the page closes).
 */
export function ExportConfig() {
  const [exported, setExported] = useState<{ yaml: string; url: string; name: string } | null>(null);
  useEffect(
    () => () => {
      if (exported) URL.revokeObjectURL(exported.url);
    },
    [exported],
  );
  const done = (answer: unknown) => {
    const { yaml } = answer as { yaml: string };
    const url = URL.createObjectURL(new Blob([yaml], { type: "application/yaml" }));
    setExported({ yaml, url, name: fileName(new Date()) });
  };
  return (
    <div>
      <p>
        The running configuration as a configuration file, secrets shown as <code>[redacted]</code>: put them
        back before using it.
      </p>
      <ActionButton
        label="Export"
        busyLabel="Exporting…"
        action={() => api("POST", "/config/export", {})}
        onDone={done}
      />
      {exported && (
        <div>
          <p>
            <a href={exported.url} download={exported.name}>
              Download {exported.name}
            </a>
          </p>
          <details>
            <summary>The exported configuration</summary>
            <pre class="json">{exported.yaml}</pre>
          </details>
        </div>
      )}
    </div>
  );
}
