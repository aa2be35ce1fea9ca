#!/usr/bin/env node
// Example MCP server (stdio): simple text transformations. Run with `node examples/servers/text.mjs`.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "text", version: "1.0.0" });

const input = z.object({ text: z.string().describe("The text to work on") });
const textShape = z.object({ text: z.string().describe("The resulting text") });

/** A successful text result: as text content and as structured content. */
function answer(text) {
  return { content: [{ type: "text", text }], structuredContent: { text } };
}

server.registerTool(
  "echo",
  { description: "Return the text unchanged.", inputSchema: input, outputSchema: textShape },
  async ({ text }) => answer(text),
);

server.registerTool(
  "uppercase",
  { description: "Convert the text to upper case.", inputSchema: input, outputSchema: textShape },
  async ({ text }) => answer(text.toUpperCase()),
);

server.registerTool(
  "lowercase",
  { description: "Convert the text to lower case.", inputSchema: input, outputSchema: textShape },
  async ({ text }) => answer(text.toLowerCase()),
);

server.registerTool(
  "reverse",
  {
    description: "Reverse the text character by character (Unicode code points, not UTF-16 units).",
    inputSchema: input,
    outputSchema: textShape,
  },
  async ({ text }) => answer([...text].reverse().join("")),
);

server.registerTool(
  "word_count",
  {
    description: "Count the words in the text (runs of non-whitespace characters).",
    inputSchema: input,
    outputSchema: z.object({ words: z.number().int().describe("Number of words") }),
  },
  async ({ text }) => {
    const words = text.split(/\s+/).filter((word) => word.length > 0).length;
    return { content: [{ type: "text", text: String(words) }], structuredContent: { words } };
  },
);

await server.connect(new StdioServerTransport());
process.stderr.write("text server ready\n");
