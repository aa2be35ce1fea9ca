#!/usr/bin/env node
// Example MCP server (stdio): basic arithmetic. Run with `node examples/servers/arithmetic.mjs`.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "arithmetic", version: "1.0.0" });

const pair = z.object({
  a: z.number().describe("First operand"),
  b: z.number().describe("Second operand"),
});
const resultShape = z.object({ result: z.number().describe("The computed value") });

/** A successful result: the number as text, and as structured content. */
function answer(result) {
  return { content: [{ type: "text", text: String(result) }], structuredContent: { result } };
}

server.registerTool(
  "add",
  { description: "Add two numbers: a + b.", inputSchema: pair, outputSchema: resultShape },
  async ({ a, b }) => answer(a + b),
);

server.registerTool(
  "subtract",
  {
    description: "Subtract the second number from the first: a - b.",
    inputSchema: pair,
    outputSchema: resultShape,
  },
  async ({ a, b }) => answer(a - b),
);

server.registerTool(
  "multiply",
  { description: "Multiply two numbers: a * b.", inputSchema: pair, outputSchema: resultShape },
  async ({ a, b }) => answer(a * b),
);

server.registerTool(
  "divide",
  {
    description: "Divide the first number by the second: a / b. Dividing by zero is an error.",
    inputSchema: pair,
    outputSchema: resultShape,
  },
  async ({ a, b }) => {
    if (b === 0) {
      return { content: [{ type: "text", text: "Cannot divide by zero: b must not be 0." }], isError: true };
    }
    return answer(a / b);
  },
);

server.registerTool(
  "sum",
  {
    description: "Add up a list of numbers; the sum of an empty list is 0.",
    inputSchema: z.object({ numbers: z.array(z.number()).describe("The numbers to add") }),
    outputSchema: resultShape,
  },
  async ({ numbers }) => answer(numbers.reduce((total, n) => total + n, 0)),
);

await server.connect(new StdioServerTransport());
process.stderr.write("arithmetic server ready\n");
