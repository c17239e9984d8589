// Checks pkg/agui against @ag-ui/core 1.0.0, driven by agui_test.go.
//
// node agui.mjs EVENTS_FILE: reads one event a line, as cadre marshals them, and validates each
// against @ag-ui/core's EventSchema (the discriminated union of every 1.0 event) and against
// the event type's own schema. Writes to stdout a JSON object: "results", one per event
// ({type, ok, error}), and "input", the RunAgentInput body HttpAgent would POST for a
// conversation covering every message role it sends, a frontend tool, context, state and a
// resume entry, after checking it against RunAgentInputSchema.
import { readFileSync } from "node:fs";
import * as schemas from "@ag-ui/core/schemas";
import { HttpAgent } from "@ag-ui/client";

const { EventSchema, RunAgentInputSchema } = schemas;

// The per-type schema of an event type: TEXT_MESSAGE_START → TextMessageStartEventSchema, RAW → RawEventSchema.
function schemaOf(type) {
  const camel = type.toLowerCase().split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  return schemas[`${camel}EventSchema`] ?? schemas[`${camel}Schema`];
}

const results = [];
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (line.trim() === "") continue;
  const event = JSON.parse(line);
  const own = schemaOf(event.type);
  const all = EventSchema.safeParse(event);
  const one = own ? own.safeParse(event) : { success: false, error: new Error(`no schema for ${event.type}`) };
  const error = !all.success ? String(all.error) : !one.success ? String(one.error) : "";
  results.push({ type: event.type, ok: error === "", error });
}

const agent = new HttpAgent({
  url: "http://127.0.0.1:1/agui",
  threadId: "thread-1",
  initialState: { city: "Oslo" },
  initialMessages: [
    { id: "s1", role: "system", content: "Be brief." },
    { id: "d1", role: "developer", content: "Use metric units." },
    { id: "u1", role: "user", content: [{ type: "text", text: "Look" }, { type: "image", source: { type: "url", value: "https://example.com/a.png" } }] },
    { id: "a1", role: "assistant", content: "Checking.", toolCalls: [{ id: "c1", type: "function", function: { name: "confirm", arguments: "{\"q\":\"ok?\"}" } }] },
    { id: "t1", role: "tool", toolCallId: "c1", content: "yes" },
    { id: "r1", role: "reasoning", content: "thinking" },
    { id: "u2", role: "user", content: "go on" },
  ],
});
const input = agent.prepareRunAgentInput({
  runId: "run-2",
  tools: [{ name: "confirm", description: "Ask the user", parameters: { type: "object", properties: { q: { type: "string" } } } }],
  context: [{ description: "unit", value: "metric" }],
  forwardedProps: { locale: "en" },
  resume: [{ interruptId: "i1", status: "resolved", payload: { approved: true } }],
});
const parsed = RunAgentInputSchema.safeParse(input);
if (!parsed.success) {
  results.push({ type: "RunAgentInput", ok: false, error: String(parsed.error) });
}
process.stdout.write(JSON.stringify({ results, input }));
