// Drives @ag-ui/client 1.0.0's HttpAgent against a cadre AG-UI endpoint, for the tests in
// agui_client_test.go.
//
//   node agui_client.mjs < scenario.json
//
// The scenario is {"url": ..., "threadId": ..., "runs": [run, ...]}; each run is one
// agent.runAgent, prepared as its fields say:
//   "user": "text"           adds a user message first;
//   "answer": "text"         adds a tool message with that content answering each tool call the
//                            previous run left pending (its outcome's pendingToolCallIds);
//   "resume": {status, ...}  resumes every interrupt in agent.pendingInterrupts with that
//                            response, through buildResumeArray;
//   "tools": [...]           the client's tools, as RunAgentInput.tools;
//   "abortOn": "TYPE"        calls agent.abortRun() when an event of that type arrives.
//
// It writes one JSON object to stdout:
//   {"runs": [{"events": [...], "invalid": [{type, error}], "result": ..., "newMessages": [...],
//     "pendingToolCallIds": [...], "pendingInterrupts": [...], "error": "...", "warnings": [...]}],
//    "messages": [...], "warnings": [...]}
// where events are the events the subscriber saw (onEvent), invalid the events on the wire
// that @ag-ui/core's EventSchema refuses, result and newMessages what runAgent resolved to,
// error what it threw (HttpAgent throws on an event out of order), pendingInterrupts the
// agent's after the run, and warnings what the client wrote with console.warn or console.error
// during the run (such as a field it stripped); then messages, agent.messages after the last
// run, and the warnings written outside the runs. A run that throws does not stop the next.
import { randomUUID } from "node:crypto";
import { HttpAgent, buildResumeArray } from "@ag-ui/client";
import { EventSchema } from "@ag-ui/core/schemas";

const warnings = []; // those written outside a run
let run; // the run being recorded
for (const level of ["warn", "error"]) {
  const write = console[level];
  console[level] = (...args) => {
    (run?.warnings ?? warnings).push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
    write(...args);
  };
}

// checkWire validates each event of an SSE body against EventSchema, into invalid.
async function checkWire(body, invalid) {
  const decoder = new TextDecoder();
  let buffer = "";
  const frame = (text) => {
    const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
    if (data === "") return;
    const event = JSON.parse(data);
    const parsed = EventSchema.safeParse(event);
    if (!parsed.success) invalid.push({ type: event.type, error: String(parsed.error) });
  };
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        frame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
    frame(buffer);
  } catch (err) {
    if (err?.name !== "AbortError") invalid.push({ type: "", error: `reading the stream: ${err}` });
  }
}

const scenario = JSON.parse(await new Response(process.stdin).text());
let wire = Promise.resolve();
const agent = new HttpAgent({
  url: scenario.url,
  threadId: scenario.threadId,
  // The stream is read twice: by the agent, and by checkWire, which sees the events as cadre
  // wrote them rather than as the client parsed them.
  fetch: async (url, init) => {
    const res = await fetch(url, init);
    if (!res.ok || res.body === null) return res;
    const [mine, theirs] = res.body.tee();
    wire = checkWire(mine, run.invalid);
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  },
});

const runs = [];
for (const step of scenario.runs) {
  if (step.user !== undefined) {
    agent.addMessage({ id: randomUUID(), role: "user", content: step.user });
  }
  if (step.answer !== undefined) {
    for (const toolCallId of runs.at(-1)?.pendingToolCallIds ?? []) {
      agent.addMessage({ id: randomUUID(), role: "tool", toolCallId, content: step.answer });
    }
  }
  const params = { tools: step.tools ?? [] };
  if (step.resume !== undefined) {
    const responses = Object.fromEntries(agent.pendingInterrupts.map((i) => [i.id, step.resume]));
    params.resume = buildResumeArray(agent.pendingInterrupts, responses);
  }
  run = { events: [], invalid: [], warnings: [], pendingToolCallIds: [] };
  wire = Promise.resolve();
  try {
    const res = await agent.runAgent(params, {
      onEvent({ event }) {
        run.events.push(event);
        if (event.type === step.abortOn) agent.abortRun();
      },
      onRunFinishedEvent(p) {
        if (p.outcome === "success") run.pendingToolCallIds = p.pendingToolCallIds;
      },
    });
    run.result = res.result;
    run.newMessages = res.newMessages;
  } catch (err) {
    run.error = err instanceof Error ? err.message : String(err);
  }
  await wire;
  run.pendingInterrupts = agent.pendingInterrupts;
  runs.push(run);
  run = undefined;
}
process.stdout.write(JSON.stringify({ runs, messages: agent.messages, warnings }));
