// ad-hoc: node .variant.mjs CONFIG KEY CALLS -> server tree CPU ms per call, 1 session sequential
import { spawn } from "node:child_process";
import { connectHttp, CALLS } from "./clients.mjs";
import { treeCpuMs } from "./cpu.mjs";
const [config, key, n, port] = process.argv.slice(2);
const child = spawn(process.execPath, ["dist/cli.js", "serve", "--config", config, "--http", "--host", "127.0.0.1", "--port", port, "--json-logs"], { stdio: ["ignore", "ignore", "ignore"] });
await new Promise((r) => setTimeout(r, 2500));
const client = await connectHttp(`http://127.0.0.1:${port}/mcp`, { "X-API-Key": key });
const call = () => client.client.callTool(CALLS.direct.request);
for (let i = 0; i < 200; i++) await client.call(CALLS.direct);
const c0 = treeCpuMs(child.pid); const t0 = performance.now();
for (let i = 0; i < Number(n); i++) await client.call(CALLS.direct);
const c1 = treeCpuMs(child.pid); const t1 = performance.now();
console.log(JSON.stringify({ cpu_ms_per_call: ((c1 - c0) / n).toFixed(3), calls_per_s: (n / ((t1 - t0) / 1000)).toFixed(0) }));
await client.close();
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
process.exit(0);
