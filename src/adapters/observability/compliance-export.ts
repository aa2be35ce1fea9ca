import { appendFile, open } from "node:fs/promises";
import type { AuditRecord } from "../../app/ports/audit-trail.js";
import type { ComplianceExporter } from "../../app/ports/compliance-export.js";
import { type ComplianceLineFormat, formatRecord, type Product } from "./compliance-formats.js";

/** Writes formatted lines to standard error (no output path) or appends them to a file. */
export class LineComplianceExporter implements ComplianceExporter {
  readonly destination: "file" | "stderr";

  constructor(
    readonly format: ComplianceLineFormat,
    private readonly output: string | null,
    private readonly product: Product,
    private readonly stderr: {
      write(text: string, done: (error?: Error | null) => void): boolean;
    } = process.stderr,
  ) {
    this.destination = output === null ? "stderr" : "file";
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const text = `${records.map((record) => formatRecord(this.format, record, this.product)).join("\n")}\n`;
    // Appended by path each time: a rotated or recreated file is picked up, a lost one is reported.
    if (this.output !== null) return appendFile(this.output, text, "utf8");
    await new Promise<void>((resolve, reject) =>
      this.stderr.write(text, (error) => (error ? reject(error) : resolve())),
    );
  }
}

/** The boot check: the output file can be opened for appending (it is created when missing). */
export async function openComplianceExporter(
  format: ComplianceLineFormat,
  output: string | null,
  product: Product,
): Promise<LineComplianceExporter> {
  if (output !== null) {
    try {
      const handle = await open(output, "a");
      await handle.close();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new Error(
        `MCP_COMPLIANCE_OUTPUT: cannot write to '${output}' (${typeof code === "string" ? code : String(error)})`,
      );
    }
  }
  return new LineComplianceExporter(format, output, product);
}
