// An MCP client on the official TypeScript SDK, for the interop tests (interop_test.go).
//
//   node interop/client.mjs --stdio <command> [args...]
//   node interop/client.mjs --http <url>
//
// Over HTTP, MCP_ACCESS_TOKEN, when set, goes with every request as a bearer token (MCP's
// authorization).
//
// It reads a JSON array of steps from stdin, such as
//   [{"op":"listTools"}, {"op":"callTool","name":"forecast","arguments":{"city":"Oslo"}},
//    {"op":"listResources"}, {"op":"readResource","uri":"skill://packing-list/SKILL.md"}]
// (ops: listPrompts, listTools, getPrompt, callTool, listResources, readResource; name,
// arguments and uri as the SDK's methods take them; "progress": true on getPrompt or callTool
// asks for progress notifications, with the SDK's onprogress), runs them in order against the
// server, and writes one JSON object to stdout:
//   {"server": {...}, "steps": [{"op": ..., "ok": true, "result": ..., "progress": [...]} or
//    {"op": ..., "ok": false, "error": "..."}], "errors": ["..."]}
// where progress holds the notifications the step received (progress, total, message), and
// errors what the SDK reported beside the steps (client.onerror), such as a progress
// notification for no request that asked for one. A step that fails does not stop the others.
// The exit code is 1 only when the client cannot connect or the input is wrong.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function transportFrom(argv) {
  const [mode, target, ...rest] = argv;
  if (mode === "--stdio" && target) {
    return new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
  }
  if (mode === "--http" && target) {
    const token = process.env.MCP_ACCESS_TOKEN;
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    return new StreamableHTTPClientTransport(new URL(target), { requestInit });
  }
  throw new Error("usage: node client.mjs --stdio <command> [args...] | --http <url>");
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const steps = JSON.parse(Buffer.concat(chunks).toString("utf8") || "[]");
  if (!Array.isArray(steps)) throw new Error("stdin must be a JSON array of steps");
  return steps;
}

// runStep runs step; progress receives the step's progress notifications, when it asks for them.
async function runStep(client, step, progress) {
  // With onprogress, the SDK sends a progress token (the request's id) in _meta.
  const options = step.progress ? { onprogress: (p) => progress.push(p) } : undefined;
  switch (step.op) {
    case "listPrompts":
      return client.listPrompts();
    case "listTools":
      return client.listTools();
    case "getPrompt":
      return client.getPrompt({ name: step.name, arguments: step.arguments ?? {} }, options);
    case "callTool":
      // The SDK checks structuredContent against the tool's outputSchema (from listTools).
      return client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, options);
    case "listResources":
      return client.listResources();
    case "readResource":
      return client.readResource({ uri: step.uri });
    default:
      throw new Error(`unknown op ${JSON.stringify(step.op)}`);
  }
}

async function main() {
  const steps = await readStdin();
  const transport = transportFrom(process.argv.slice(2));
  const client = new Client({ name: "cadre-interop", version: "1.0.0" });
  const errors = [];
  client.onerror = (err) => errors.push(String(err?.message ?? err));
  await client.connect(transport);
  const out = { server: client.getServerVersion() ?? null, steps: [], errors };
  for (const step of steps) {
    const progress = [];
    try {
      const result = await runStep(client, step, progress);
      out.steps.push({ op: step.op, ok: true, result, ...(step.progress ? { progress } : {}) });
    } catch (err) {
      out.steps.push({ op: step.op, ok: false, error: String(err?.message ?? err) });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
