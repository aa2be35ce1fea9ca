import { Json } from "../../components/ui.js";
import type { CallOutcome, ToolResult } from "./tool-call.js";

/** Fields of a result shown on their own: content blocks, structured content, the error flag. */
const SHOWN = new Set(["content", "structuredContent", "isError", "resultType"]);

/** What a call came to: its content blocks (text, images), structured content, the rest as JSON. */
export function ResultView({ outcome }: { outcome: CallOutcome }) {
  return (
    <div class="tool-result" data-outcome={outcome.ok ? "ok" : "error"}>
      {outcome.ok ? (
        <p class="ok-note" role="status">
          The tool answered in {outcome.elapsedMs} ms.
        </p>
      ) : (
        <p class="error" role="alert">
          {outcome.errorType ? `${outcome.errorType}: ` : ""}
          {outcome.message}
        </p>
      )}
      {outcome.result && <ResultBody result={outcome.result} />}
    </div>
  );
}

function ResultBody({ result }: { result: ToolResult }) {
  const rest = Object.fromEntries(Object.entries(result).filter(([key]) => !SHOWN.has(key)));
  return (
    <>
      {(result.content ?? []).map((block, index) => (
        <Block key={String(index)} block={block} index={index} />
      ))}
      {result.structuredContent !== undefined && (
        <>
          <h3>Structured content</h3>
          <Json value={result.structuredContent} />
        </>
      )}
      {Object.keys(rest).length > 0 && (
        <>
          <h3>Other fields</h3>
          <Json value={rest} />
        </>
      )}
    </>
  );
}

/** One content block: text as text, an image from its base64 data, anything else as JSON. */
function Block({ block, index }: { block: unknown; index: number }) {
  const item = (block ?? {}) as { type?: string; text?: unknown; data?: unknown; mimeType?: unknown };
  if (item.type === "text" && typeof item.text === "string") {
    return <pre class="tool-text">{item.text}</pre>;
  }
  if (
    item.type === "image" &&
    typeof item.data === "string" &&
    typeof item.mimeType === "string" &&
    /^image\/[\w.+-]+$/.test(item.mimeType) &&
    /^[A-Za-z0-9+/=\s]*$/.test(item.data)
  ) {
    return (
      <figure class="tool-image">
        <img
          src={`data:${item.mimeType};base64,${item.data.replace(/\s/g, "")}`}
          alt={`Tool result ${index + 1} (${item.mimeType})`}
        />
        <figcaption class="muted">{item.mimeType}</figcaption>
      </figure>
    );
  }
  return <Json value={block} />;
}
