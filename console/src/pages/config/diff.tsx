/** `GET /config/diff`: the file on disk against what runs, both as normalised YAML, secrets redacted. */
export interface ConfigDiff {
  has_diff: boolean;
  diff: string;
  on_disk: string;
  in_memory: string;
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-same";
}

/** The unified diff, a line per row (`-` the file has it, `+` only the running configuration does). */
export function DiffView({ diff }: { diff: ConfigDiff }) {
  if (!diff.has_diff) {
    return <p data-diff="none">The file on disk and the running configuration are the same.</p>;
  }
  return (
    <div>
      <p data-diff="some">
        The file and the running configuration differ. Lines marked <code>-</code> are in the file only (a
        reload would apply them), lines marked <code>+</code> run but are not in the file (servers and groups
        registered through the API, or a file edited back).
      </p>
      {diff.diff === "" ? (
        <p class="muted">
          Only a secret differs: its value is never shown (<code>[redacted, differs]</code>).
        </p>
      ) : (
        <pre class="diff">
          {diff.diff.split("\n").map((line, index) => (
            <span key={index} class={lineClass(line)}>
              {line}
            </span>
          ))}
        </pre>
      )}
      <details>
        <summary>The file on disk</summary>
        <pre class="json">{diff.on_disk}</pre>
      </details>
      <details>
        <summary>The running configuration</summary>
        <pre class="json">{diff.in_memory}</pre>
      </details>
    </div>
  );
}
