// The cadre console's page: an AG-UI client for the assistants the console serves, a live tree
// of each run's requests and tool calls, approvals, the page's own tools, chats kept in a
// store and eval reports. Plain JavaScript, no framework, nothing from the network.
//
// Everything a model, a tool, a store or a person wrote is put in the page as text
// (textContent, createTextNode), never parsed as HTML.
//
// The conversation is kept here as AG-UI messages and sent whole with every run: user
// messages the page sent; assistant messages from TEXT_MESSAGE_* and TOOL_CALL_* events (the
// calls of one model request share a parentMessageId and make one message); tool messages
// from TOOL_CALL_RESULT and from the answers to the page's tools. Events of delegated runs
// (those with a subagentRunId) are drawn in the tree, not added to the conversation.

const TOKEN_KEY = "cadre-console-token";
const ASSISTANT_KEY = "cadre-console-assistant";
const SIGN_IN = "sign in: paste a bearer token";

const $ = (id) => document.getElementById(id);

const ui = {
  status: $("status"),
  threadLabel: $("thread-label"),
  assistant: $("assistant"),
  description: $("assistant-description"),
  newChat: $("new-chat"),
  chats: $("chats"),
  chatsNote: $("chats-note"),
  reportsPanel: $("reports-panel"),
  reports: $("reports"),
  reportsNote: $("reports-note"),
  reportsRefresh: $("reports-refresh"),
  signin: $("signin-details"),
  token: $("token"),
  tokenForm: $("token-form"),
  tokenClear: $("token-clear"),
  chatView: $("chat-view"),
  chatScroll: $("chat-scroll"),
  messages: $("messages"),
  approvals: $("approvals"),
  clientCalls: $("client-calls"),
  working: $("working"),
  prompt: $("prompt"),
  send: $("send"),
  stop: $("stop"),
  reportView: $("report-view"),
  reportName: $("report-name"),
  reportFrame: $("report-frame"),
  backToChat: $("back-to-chat"),
  tree: $("tree"),
  treePane: document.querySelector(".treepane"),
};

const state = {
  token: "",
  assistants: [],
  clientTools: [],
  chatsEnabled: false,
  reportsEnabled: false,
  assistant: "",
  threadId: "",
  messages: [], // the thread's AG-UI messages, sent with every run
  views: new Map(), // message id -> its view in #messages
  calls: new Map(), // tool call id -> {name, args}: the calls of the conversation
  approvals: [], // {interrupt, card, decision}: the interrupts the thread waits on
  clientCalls: [], // {id, card, answered}: the page's tool calls the thread waits on
  busy: false,
  controller: null,
  runs: 0, // top runs drawn in the tree for this chat
  lastTool: new Map(), // tool call id -> its latest tool node in the tree
};

// ---------------------------------------------------------------- small helpers

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

function newId(prefix) {
  return `${prefix}_${randomHex(12)}`;
}

// pretty returns a JSON value, or a string holding JSON, indented; any other string as it is.
function pretty(v) {
  if (v === undefined) return "";
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

// oneLine returns a short, single-line preview of s.
function oneLine(s, max = 80) {
  const t = String(s ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

// contentText returns a message's or a result's content as text: a string, or the text parts
// of a list of parts.
function contentText(c) {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((p) => (p && p.type === "text" ? p.text ?? "" : `[${p && p.type ? p.type : "part"}]`))
      .join("");
  }
  if (c === undefined || c === null) return "";
  return pretty(c);
}

const numberFormat = new Intl.NumberFormat("en");
const fmtInt = (n) => numberFormat.format(Math.round(Number(n) || 0));

function fmtDuration(ms) {
  ms = Math.max(0, Math.round(Number(ms) || 0));
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60000);
  return `${m} min ${Math.round((ms % 60000) / 1000)} s`;
}

// fmtCost writes a cost in the prices' currency with the digits that matter, never in
// exponent notation.
function fmtCost(c) {
  c = Number(c) || 0;
  if (c === 0) return "0";
  if (c < 0.000001) return "<0.000001";
  const digits = Math.min(6, Math.max(2, 2 - Math.floor(Math.log10(c))));
  return c.toFixed(digits).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}

function fmtTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { month: "short", day: "numeric" }) +
        " " +
        d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

// follower keeps a scrolling element at its bottom while content is added, unless the user
// scrolled up to read.
function follower(scroller) {
  let atBottom = true;
  scroller.addEventListener("scroll", () => {
    atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
  });
  return {
    follow() {
      if (atBottom) scroller.scrollTop = scroller.scrollHeight;
    },
    jump() {
      atBottom = true;
      scroller.scrollTop = scroller.scrollHeight;
    },
  };
}

const chatFollow = follower(ui.chatScroll);
const treeFollow = follower(ui.treePane);

// ---------------------------------------------------------------- status and errors

function setStatus(text, kind) {
  ui.status.textContent = text;
  ui.status.dataset.state = kind;
  ui.status.title = text;
}

// fail shows an error in #status and in the chat.
function fail(text) {
  setStatus(text, "error");
  addErrorMessage(text);
}

// HTTPError is a response whose status was not 2xx; its message is what the page shows.
class HTTPError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function httpError(res) {
  if (res.status === 401) {
    openSignin();
    return new HTTPError(401, SIGN_IN);
  }
  let text = "";
  try {
    text = (await res.text()).trim();
  } catch {
    // The body could not be read: the status alone says it.
  }
  if (text.length > 2000) text = text.slice(0, 2000) + "…";
  return new HTTPError(res.status, `HTTP ${res.status}${text ? ": " + text : " " + res.statusText}`);
}

function errorText(e) {
  if (e instanceof HTTPError) return e.message;
  if (e && e.name === "TypeError") return `network error: ${e.message}`;
  return e && e.message ? e.message : String(e);
}

// ---------------------------------------------------------------- token

function readToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const t = params.get("token");
  if (t) {
    storage()?.setItem(TOKEN_KEY, t);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  }
  state.token = storage()?.getItem(TOKEN_KEY) || "";
  ui.token.value = state.token;
}

function authHeaders(extra = {}) {
  const h = { ...extra };
  if (state.token) h.Authorization = `Bearer ${state.token}`;
  return h;
}

function openSignin() {
  ui.signin.open = true;
  ui.signin.parentElement.classList.add("attention");
}

async function saveToken() {
  state.token = ui.token.value.trim();
  if (state.token) storage()?.setItem(TOKEN_KEY, state.token);
  else storage()?.removeItem(TOKEN_KEY);
  ui.signin.parentElement.classList.remove("attention");
  if (!state.busy) await start(true);
}

// ---------------------------------------------------------------- API

async function api(path) {
  const res = await fetch(path, { headers: authHeaders({ Accept: "application/json" }), cache: "no-store" });
  if (!res.ok) throw await httpError(res);
  return res.json();
}

async function loadAssistants() {
  const data = await api("api/assistants");
  state.assistants = Array.isArray(data.assistants) ? data.assistants : [];
  state.clientTools = Array.isArray(data.clientTools) ? data.clientTools : [];
  state.chatsEnabled = data.chats === true;
  state.reportsEnabled = data.reports === true;
  ui.assistant.replaceChildren();
  for (const a of state.assistants) {
    const o = el("option", "", a.name);
    o.value = a.name;
    ui.assistant.append(o);
  }
  ui.reportsPanel.hidden = !state.reportsEnabled;
}

function selectAssistant(name) {
  const known = state.assistants.some((a) => a.name === name);
  state.assistant = known ? name : state.assistants[0]?.name || "";
  ui.assistant.value = state.assistant;
  const a = state.assistants.find((x) => x.name === state.assistant);
  ui.description.textContent = a?.description || "";
  if (state.assistant) storage()?.setItem(ASSISTANT_KEY, state.assistant);
}

async function loadChats() {
  ui.chatsNote.hidden = true;
  if (!state.chatsEnabled) {
    ui.chats.replaceChildren();
    ui.chatsNote.textContent = "No store is configured: chats last as long as this page.";
    ui.chatsNote.hidden = false;
    return;
  }
  if (!state.assistant) return;
  let data;
  try {
    data = await api(`api/chats?assistant=${encodeURIComponent(state.assistant)}`);
  } catch (e) {
    fail(`chats: ${errorText(e)}`);
    return;
  }
  ui.chats.replaceChildren();
  const chats = Array.isArray(data.chats) ? data.chats : [];
  if (chats.length === 0) {
    ui.chatsNote.textContent = "No chats yet.";
    ui.chatsNote.hidden = false;
  }
  for (const c of chats) {
    const li = el("li", "chat");
    li.dataset.thread = c.threadId;
    li.tabIndex = 0;
    li.setAttribute("role", "button");
    li.append(el("span", "chat-title", c.title || "(untitled)"));
    const meta = [];
    if (Number.isFinite(c.messages) && c.messages > 0) meta.push(`${c.messages} message${c.messages === 1 ? "" : "s"}`);
    if (c.updated) meta.push(fmtTime(c.updated));
    li.append(el("span", "chat-meta", meta.join(" · ")));
    if (c.threadId === state.threadId) li.classList.add("active");
    ui.chats.append(li);
  }
}

function markActiveChat() {
  for (const li of ui.chats.querySelectorAll(".chat")) {
    li.classList.toggle("active", li.dataset.thread === state.threadId);
  }
}

// loadReports lists the eval reports and returns them, null when the list could not be read.
// Each report's url is where the page loads it from: behind WithAuth, with a ticket that
// lasts a few minutes, which is why the list is read again before a report opens.
async function loadReports() {
  if (!state.reportsEnabled) return null;
  let data;
  try {
    data = await api("api/reports");
  } catch (e) {
    fail(`reports: ${errorText(e)}`);
    return null;
  }
  ui.reports.replaceChildren();
  const reports = Array.isArray(data.reports) ? data.reports : [];
  ui.reportsNote.hidden = reports.length > 0;
  ui.reportsNote.textContent = "No reports yet.";
  for (const r of reports) {
    const li = el("li");
    const a = el("a", "report", r.name);
    a.href = reportURL(r);
    a.dataset.name = r.name;
    if (a.dataset.name === ui.reportName.textContent && !ui.reportView.hidden) a.classList.add("active");
    li.append(a);
    if (r.modified) li.append(el("span", "report-meta", fmtTime(r.modified)));
    ui.reports.append(li);
  }
  return reports;
}

// reportURL is where a report loads from: the url the list gives, relative to the page.
function reportURL(r) {
  const u = typeof r.url === "string" ? r.url : "";
  return u && !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(u) ? u : `reports/${encodeURIComponent(r.name)}`;
}

// openReport reads the list again, for a fresh link, and shows the report name in the frame.
async function openReport(name) {
  const reports = await loadReports();
  if (reports === null) return;
  const r = reports.find((x) => x.name === name);
  if (!r) {
    fail(`report ${name}: it is no longer in the list`);
    return;
  }
  showReport(r.name, reportURL(r));
}

// ---------------------------------------------------------------- views: chat and report

function showReport(name, href) {
  ui.reportFrame.src = href;
  ui.reportName.textContent = name;
  ui.chatView.hidden = true;
  ui.reportView.hidden = false;
  document.body.classList.add("report-open");
  for (const a of ui.reports.querySelectorAll(".report")) a.classList.toggle("active", a.dataset.name === name);
}

function showChat() {
  ui.reportView.hidden = true;
  ui.chatView.hidden = false;
  document.body.classList.remove("report-open");
  for (const a of ui.reports.querySelectorAll(".report")) a.classList.remove("active");
  ui.prompt.focus();
}

// ---------------------------------------------------------------- the conversation

function resetChat(threadId) {
  state.threadId = threadId;
  state.messages = [];
  state.views.clear();
  state.calls.clear();
  state.approvals = [];
  state.clientCalls = [];
  state.runs = 0;
  state.lastTool.clear();
  ui.messages.replaceChildren();
  ui.approvals.replaceChildren();
  ui.clientCalls.replaceChildren();
  ui.tree.replaceChildren();
  ui.threadLabel.textContent = threadId;
  ui.threadLabel.title = "thread " + threadId;
  markActiveChat();
  updateComposer();
}

function newChat() {
  if (state.busy) return;
  resetChat(`${state.assistant}~${randomHex(8)}`);
  setHashChat("");
  showChat();
  if (ui.status.dataset.state !== "running") setStatus("idle", "idle");
}

// setHashChat names the open chat in the address's fragment, so that a reload reopens it.
function setHashChat(threadId) {
  const hash = threadId ? "#chat=" + encodeURIComponent(threadId) : "";
  if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
}

function messageView(role, label) {
  const div = el("div", "message");
  div.dataset.role = role;
  div.append(el("div", "who", label));
  const body = el("div", "body");
  div.append(body);
  ui.messages.append(div);
  chatFollow.follow();
  return { el: div, body };
}

function addUserMessage(m) {
  const v = messageView("user", "you");
  v.body.textContent = contentText(m.content);
  state.views.set(m.id, v);
  return v;
}

function addErrorMessage(text) {
  const v = messageView("error", "error");
  v.body.textContent = text;
  return v;
}

// assistantView returns the view of the assistant message id, made when missing.
function assistantView(id) {
  let v = state.views.get(id);
  if (!v) {
    v = messageView("assistant", state.assistant || "assistant");
    v.text = document.createTextNode("");
    v.body.append(v.text);
    v.el.dataset.message = id;
    state.views.set(id, v);
  }
  return v;
}

// assistantMessage returns the assistant message id of the conversation, made when missing.
function assistantMessage(id) {
  let m = state.messages.find((x) => x.id === id && x.role === "assistant");
  if (!m) {
    m = { id, role: "assistant", content: "" };
    state.messages.push(m);
  }
  return m;
}

function addCallView(messageId, call) {
  const v = assistantView(messageId);
  if (!v.calls) {
    v.calls = el("ul", "calls");
    v.el.append(v.calls);
  }
  const li = el("li", "call");
  li.dataset.call = call.id;
  li.append(el("span", "call-name", call.function.name));
  const args = el("span", "call-args", oneLine(call.function.arguments, 120));
  li.append(args);
  v.calls.append(li);
  chatFollow.follow();
  return args;
}

function addToolMessage(m) {
  const name = state.calls.get(m.toolCallId)?.name || "tool";
  const v = messageView("tool", `${name} → result`);
  v.el.dataset.call = m.toolCallId;
  const text = contentText(m.content);
  const pre = el("pre", "tool-output", text);
  v.body.append(pre);
  if (text.startsWith("error: ")) v.el.classList.add("is-error");
  if (text.startsWith("denied: ")) v.el.classList.add("is-denied");
  state.views.set(m.id, v);
  return v;
}

// renderMessages draws a conversation read from the store.
function renderMessages(messages) {
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const c of m.toolCalls || []) {
        state.calls.set(c.id, { name: c.function?.name || "", args: c.function?.arguments || "" });
      }
    }
  }
  for (const m of messages) {
    switch (m.role) {
      case "user":
        addUserMessage(m);
        break;
      case "assistant": {
        const v = assistantView(m.id);
        v.text.appendData(contentText(m.content));
        if (!contentText(m.content)) v.el.classList.add("calls-only");
        for (const c of m.toolCalls || []) addCallView(m.id, c);
        break;
      }
      case "tool":
        addToolMessage(m);
        break;
      default: {
        const v = messageView(m.role, m.role);
        v.body.textContent = contentText(m.content);
      }
    }
  }
}

// wireMessages returns the conversation as it is sent: an assistant message without text
// carries no content, and one with neither text nor calls is left out.
function wireMessages() {
  const out = [];
  for (const m of state.messages) {
    if (m.role === "assistant") {
      const w = { id: m.id, role: "assistant" };
      if (m.content) w.content = m.content;
      if (m.toolCalls && m.toolCalls.length) w.toolCalls = m.toolCalls;
      if (!w.content && !w.toolCalls) continue;
      out.push(w);
    } else {
      out.push(m);
    }
  }
  return out;
}

// openChat shows a chat from the store with what it waits for, so that the person can go on
// with it. It returns false, having said why, when the chat could not be read.
async function openChat(threadId) {
  if (state.busy) return false;
  let data;
  try {
    data = await api(`api/chats/${encodeURIComponent(threadId)}`);
  } catch (e) {
    fail(`chat ${threadId}: ${errorText(e)}`);
    return false;
  }
  if (data.assistant && data.assistant !== state.assistant) {
    selectAssistant(data.assistant);
    await loadChats();
  }
  resetChat(data.threadId || threadId);
  setHashChat(state.threadId);
  const messages = (Array.isArray(data.messages) ? data.messages : []).filter((m) => m && !m.subagentRunId);
  state.messages = messages.map((m) => ({ ...m }));
  renderMessages(state.messages);
  const note = el("li", "tree-note", "Reopened from the store: the runs you start now appear here as they happen.");
  ui.tree.append(note);
  for (const i of Array.isArray(data.interrupts) ? data.interrupts : []) addApproval(i);
  for (const id of Array.isArray(data.pendingToolCallIds) ? data.pendingToolCallIds : []) addClientCall(id);
  showChat();
  chatFollow.jump();
  setStatus("idle", "idle");
  updateComposer();
  return true;
}

// ---------------------------------------------------------------- approvals and the page's tools

function addApproval(interrupt) {
  const callId = interrupt.toolCallId || interrupt.id;
  const meta = interrupt.metadata || {};
  const card = el("div", "approval card");
  card.dataset.call = callId;
  card.dataset.interrupt = interrupt.id;
  const title = el("div", "card-title");
  title.append(el("span", "card-kind", "approval"), el("span", "", interrupt.message || `${meta.assistant || "the assistant"} asks to call ${meta.tool || "a tool"}`));
  card.append(title);
  const facts = el("div", "card-facts");
  if (meta.tool) facts.append(el("span", "", "tool "), el("code", "", meta.tool));
  if (meta.assistant) facts.append(el("span", "", " · asked by "), el("code", "", meta.assistant));
  card.append(facts);
  if (meta.arguments !== undefined) card.append(el("pre", "args", pretty(meta.arguments)));
  const row = el("div", "row");
  const approve = el("button", "approve primary", "Approve");
  approve.type = "button";
  const reason = el("input", "reason");
  reason.type = "text";
  reason.placeholder = "reason (optional, sent with a denial)";
  const deny = el("button", "deny danger", "Deny");
  deny.type = "button";
  row.append(approve, deny, reason);
  card.append(row);
  const decision = el("div", "decision");
  card.append(decision);
  const entry = { interrupt, card, decision: null };
  const decide = (d, text) => {
    if (state.busy || entry.decision) return;
    entry.decision = d;
    card.dataset.decision = d.payload.approved ? "approved" : "denied";
    decision.textContent = text;
    approve.disabled = deny.disabled = reason.disabled = true;
    maybeContinue();
  };
  approve.addEventListener("click", () => decide({ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }, "approved"));
  deny.addEventListener("click", () => {
    const r = reason.value.trim();
    const payload = r ? { approved: false, reason: r } : { approved: false };
    decide({ interruptId: interrupt.id, status: "resolved", payload }, r ? `denied: ${r}` : "denied");
  });
  reason.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") deny.click();
  });
  state.approvals.push(entry);
  ui.approvals.append(card);
  treeMarkWaiting(callId);
  chatFollow.follow();
  updateComposer();
}

function addClientCall(id) {
  const call = state.calls.get(id) || { name: "a tool", args: "" };
  const card = el("div", "client-call card");
  card.dataset.call = id;
  const title = el("div", "card-title");
  title.append(el("span", "card-kind", "your tool"), el("span", "", "The assistant calls "), el("code", "", call.name));
  card.append(title);
  const tool = state.clientTools.find((t) => t.name === call.name);
  if (tool?.description) card.append(el("div", "card-facts", tool.description));
  if (call.args) card.append(el("pre", "args", pretty(call.args)));
  const answer = el("textarea", "answer");
  answer.rows = 2;
  answer.placeholder = "the tool's result, as the model will read it";
  const send = el("button", "send-answer primary", "Answer");
  send.type = "button";
  const row = el("div", "row");
  row.append(send);
  card.append(answer, row);
  const entry = { id, card, answered: false, message: null };
  send.addEventListener("click", () => {
    if (state.busy || entry.answered) return;
    entry.answered = true;
    answer.disabled = send.disabled = true;
    card.dataset.answered = "true";
    const m = { id: newId("tool"), role: "tool", toolCallId: id, content: answer.value };
    entry.message = m;
    state.messages.push(m);
    addToolMessage(m);
    treeAnswered(id, m.content);
    maybeContinue();
  });
  answer.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) send.click();
  });
  state.clientCalls.push(entry);
  ui.clientCalls.append(card);
  treeMarkWaiting(id);
  chatFollow.follow();
  updateComposer();
}

function undecided() {
  return state.approvals.some((a) => !a.decision) || state.clientCalls.some((c) => !c.answered);
}

// maybeContinue starts the next run once every interrupt is decided and every call of the
// page's tools answered.
function maybeContinue() {
  updateComposer();
  if (state.busy || undecided()) return;
  if (state.approvals.length > 0) {
    const approvals = state.approvals;
    const answers = state.clientCalls;
    run("resume", {
      resume: approvals.map((a) => a.decision),
      rollback() {
        for (const a of approvals) reopenApproval(a);
        state.approvals = approvals;
        rollbackAnswers(answers);
      },
    });
  } else if (state.clientCalls.length > 0) {
    const answers = state.clientCalls;
    run("answer", { rollback: () => rollbackAnswers(answers) });
  }
}

function reopenApproval(a) {
  a.decision = null;
  delete a.card.dataset.decision;
  a.card.querySelector(".decision").textContent = "";
  for (const c of a.card.querySelectorAll("button, input")) c.disabled = false;
  if (!a.card.isConnected) ui.approvals.append(a.card);
}

function rollbackAnswers(answers) {
  for (const c of answers) {
    if (c.message) {
      state.messages = state.messages.filter((m) => m !== c.message);
      state.views.get(c.message.id)?.el.remove();
      state.views.delete(c.message.id);
    }
    c.answered = false;
    c.message = null;
    const t = state.lastTool.get(c.id);
    if (t) {
      t.resultPre.textContent = "";
      t.resultLabel.hidden = t.resultPre.hidden = true;
      setState(t.node, "waiting");
      t.meta.textContent = "waiting";
    }
    delete c.card.dataset.answered;
    for (const x of c.card.querySelectorAll("button, textarea")) x.disabled = false;
    if (!c.card.isConnected) ui.clientCalls.append(c.card);
  }
  state.clientCalls = answers;
}

function updateComposer() {
  const waiting = undecided();
  const disabled = state.busy || waiting || !state.assistant;
  ui.send.disabled = disabled;
  ui.stop.hidden = !state.busy;
  ui.newChat.disabled = state.busy;
  ui.assistant.disabled = state.busy;
  ui.chats.classList.toggle("locked", state.busy);
  if (state.busy) ui.prompt.placeholder = "The assistant is working…";
  else if (state.approvals.some((a) => !a.decision)) ui.prompt.placeholder = "Decide the pending approval first.";
  else if (state.clientCalls.some((c) => !c.answered)) ui.prompt.placeholder = "Answer the call of your tool first.";
  else ui.prompt.placeholder = "Write a message — Enter sends, Shift+Enter adds a line";
}

function setBusy(b) {
  state.busy = b;
  ui.working.hidden = !b;
  updateComposer();
  if (b) chatFollow.follow();
}

// ---------------------------------------------------------------- sending

function sendPrompt() {
  const text = ui.prompt.value;
  if (!text.trim() || ui.send.disabled) return;
  const m = { id: newId("user"), role: "user", content: text };
  state.messages.push(m);
  const v = addUserMessage(m);
  chatFollow.jump();
  ui.prompt.value = "";
  run("prompt", {
    rollback() {
      state.messages = state.messages.filter((x) => x !== m);
      v.el.classList.add("unsent");
      v.el.append(el("div", "unsent-note", "not sent"));
      if (!ui.prompt.value) ui.prompt.value = text;
    },
  });
}

// run POSTs a RunAgentInput for the thread and draws the events it streams back. kind says
// what the run answers (prompt, resume, answer); opts.resume is the resume entries and
// opts.rollback undoes what the page added for a run the server refused.
async function run(kind, opts = {}) {
  if (state.busy) return;
  const input = {
    threadId: state.threadId,
    runId: newId("run"),
    messages: wireMessages(),
    tools: state.clientTools,
    context: [],
    state: null,
    forwardedProps: null,
  };
  if (opts.resume) input.resume = opts.resume;
  const controller = new AbortController();
  state.controller = controller;
  setBusy(true);
  setStatus("running", "running");
  const stream = newStream(kind);
  let streaming = false;
  try {
    const res = await fetch(`api/run/${encodeURIComponent(state.assistant)}`, {
      method: "POST",
      headers: authHeaders({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(input),
      signal: controller.signal,
      cache: "no-store",
    });
    if (!res.ok) throw await httpError(res);
    if (!res.body) throw new Error("the response has no body to read");
    streaming = true;
    // The server took the decisions and answers: their cards go, and the chat exists now.
    ui.approvals.replaceChildren();
    ui.clientCalls.replaceChildren();
    state.approvals = [];
    state.clientCalls = [];
    setHashChat(state.threadId);
    await readEvents(res.body, (ev) => handle(stream, ev));
    if (!stream.ended) throw new Error("the stream ended before the run finished");
    if (!stream.failed) setStatus("idle", "idle");
  } catch (e) {
    if (e && e.name === "AbortError") {
      treeAbort(stream, "stopped");
      addErrorMessage("stopped: the run was cancelled");
      setStatus("idle", "idle");
    } else {
      const text = errorText(e);
      treeAbort(stream, text);
      if (!streaming && opts.rollback) opts.rollback();
      fail(text);
    }
  } finally {
    state.controller = null;
    setBusy(false);
    chatFollow.follow();
  }
  if (state.chatsEnabled) await loadChats();
  maybeContinue();
  if (!ui.send.disabled && document.activeElement === document.body) ui.prompt.focus();
}

// readEvents reads a text/event-stream body as it arrives and calls onEvent with each event's
// JSON, in order.
async function readEvents(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const dispatch = (block) => {
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
    if (data.length === 0) return;
    let ev;
    try {
      ev = JSON.parse(data.join("\n"));
    } catch {
      throw new Error("the stream sent an event that is not JSON");
    }
    onEvent(ev);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      dispatch(block);
    }
  }
  buf += decoder.decode();
  if (buf.trim()) dispatch(buf);
}

// handle applies one event of a run: to the conversation (the top run's messages, calls and
// results), to the chat view and to the tree.
function handle(stream, ev) {
  const sub = ev.subagentRunId || "";
  switch (ev.type) {
    case "RUN_STARTED":
      treeTop(stream, ev);
      break;
    case "TEXT_MESSAGE_START":
      if (sub) treeSay(stream, sub, ev.messageId);
      else textStart(ev.messageId);
      break;
    case "TEXT_MESSAGE_CONTENT":
      if (sub) treeSay(stream, sub, ev.messageId, ev.delta);
      else textDelta(ev.messageId, ev.delta);
      break;
    case "TEXT_MESSAGE_END":
      if (!sub) state.views.get(ev.messageId)?.el.classList.remove("streaming");
      break;
    case "TEXT_MESSAGE_CHUNK": {
      const id = ev.messageId || stream.chunkMessage || newId("msg");
      stream.chunkMessage = id;
      if (sub) treeSay(stream, sub, id, ev.delta || "");
      else {
        if (!state.views.has(id)) textStart(id);
        if (ev.delta) textDelta(id, ev.delta);
      }
      break;
    }
    case "TOOL_CALL_START":
      callStart(stream, sub, ev.toolCallId, ev.toolCallName, ev.parentMessageId);
      break;
    case "TOOL_CALL_ARGS":
      callArgs(stream, sub, ev.toolCallId, ev.delta || "");
      break;
    case "TOOL_CALL_END":
      callEnd(stream, sub, ev.toolCallId);
      break;
    case "TOOL_CALL_CHUNK":
      if (ev.toolCallId && !stream.tools.has(toolKey(sub, ev.toolCallId))) {
        callStart(stream, sub, ev.toolCallId, ev.toolCallName || "tool", ev.parentMessageId);
      }
      if (ev.delta) callArgs(stream, sub, ev.toolCallId, ev.delta);
      break;
    case "TOOL_CALL_RESULT":
      callResult(stream, sub, ev.toolCallId, contentText(ev.content), ev.messageId);
      break;
    case "CUSTOM":
      treeCustom(stream, sub, ev.name, ev.value || {});
      break;
    case "SUBAGENT_STARTED":
      treeSubagent(stream, ev);
      break;
    case "SUBAGENT_FINISHED":
      treeSubagentEnd(stream, ev.subagentRunId, ev.outcome?.type === "suspended" ? "suspended" : "done", ev);
      break;
    case "SUBAGENT_ERROR":
      treeSubagentEnd(stream, ev.subagentRunId, "failed", ev);
      break;
    case "RUN_FINISHED":
      runFinished(stream, ev);
      break;
    case "RUN_ERROR":
      stream.ended = true;
      stream.failed = true;
      treeEnd(stream, "failed", ev.message);
      fail(ev.message || "the run failed");
      break;
    default:
      // State, step, reasoning and activity events: cadre writes none, and the console
      // draws none.
      break;
  }
}

function textStart(id) {
  const m = assistantMessage(id);
  const v = assistantView(id);
  v.el.classList.add("streaming");
  v.el.classList.remove("calls-only");
  return m;
}

function textDelta(id, delta) {
  if (!delta) return;
  const m = assistantMessage(id);
  m.content += delta;
  const v = assistantView(id);
  v.text.appendData(delta);
  chatFollow.follow();
}

function callStart(stream, sub, id, name, parentMessageId) {
  treeTool(stream, sub, id, name);
  if (sub) return;
  const parent = parentMessageId || newId("msg");
  const m = assistantMessage(parent);
  const call = { id, type: "function", function: { name, arguments: "" } };
  (m.toolCalls ||= []).push(call);
  state.calls.set(id, { name, args: "" });
  const v = assistantView(parent);
  if (!m.content) v.el.classList.add("calls-only");
  stream.callViews.set(id, { call, args: addCallView(parent, call) });
}

function callArgs(stream, sub, id, delta) {
  const t = stream.tools.get(toolKey(sub, id));
  if (t) t.args += delta;
  if (sub) return;
  const cv = stream.callViews.get(id);
  if (cv) {
    cv.call.function.arguments += delta;
    state.calls.get(id).args = cv.call.function.arguments;
  }
}

function callEnd(stream, sub, id) {
  const t = stream.tools.get(toolKey(sub, id));
  if (t) {
    t.argsPre.textContent = pretty(t.args);
    t.preview.textContent = oneLine(t.args, 60);
  }
  if (sub) return;
  const cv = stream.callViews.get(id);
  if (cv) cv.args.textContent = oneLine(cv.call.function.arguments, 120);
}

function callResult(stream, sub, id, text, messageId) {
  treeResult(stream, sub, id, text);
  if (sub) return;
  const m = { id: messageId || newId("tool"), role: "tool", toolCallId: id, content: text };
  state.messages.push(m);
  addToolMessage(m);
  chatFollow.follow();
}

function runFinished(stream, ev) {
  stream.ended = true;
  const outcome = ev.outcome || { type: "success" };
  if (outcome.type === "interrupt") {
    treeEnd(stream, "suspended", "waiting for approval");
    for (const i of outcome.interrupts || []) addApproval(i);
  } else if (outcome.type === "cancelled") {
    treeEnd(stream, "done", "cancelled");
  } else {
    const pending = outcome.pendingToolCallIds || [];
    treeEnd(stream, pending.length ? "suspended" : "done", pending.length ? "waiting for your tool" : "");
    for (const id of pending) addClientCall(id);
  }
}

// ---------------------------------------------------------------- the run tree
//
// Each run request draws one top run node in #tree; sub-agents nest under the tool call that
// delegated to them. A run holds its requests and tool calls in order; a tool call holds its
// arguments and result (collapsed) and the sub-agents it started.

function newStream(kind) {
  return {
    kind,
    top: null,
    runs: new Map(), // subagentRunId -> run
    tools: new Map(), // toolKey -> tool node
    callViews: new Map(), // tool call id -> its view in the chat (top run only)
    ended: false,
    failed: false,
    chunkMessage: "",
  };
}

function toolKey(sub, id) {
  return `${sub}\u0000${id}`;
}

function badge() {
  return el("span", "badge");
}

function setState(node, s) {
  node.dataset.state = s;
  node.querySelector(":scope > .head .badge, :scope > details > .head .badge")?.setAttribute("title", s);
}

// runNode makes a run node: a header with its name, state and totals, and its children.
function runNode(name, label) {
  const li = el("li", "node");
  li.dataset.kind = "run";
  li.dataset.state = "running";
  li.dataset.name = name;
  const details = el("details");
  details.open = true;
  const head = el("summary", "head");
  const totals = el("span", "meta totals");
  head.append(badge(), el("span", "label", name));
  if (label) head.append(el("span", "tag", label));
  head.append(totals);
  const children = el("ul", "children");
  details.append(head, children);
  li.append(details);
  return {
    node: li,
    children,
    totals,
    head,
    parent: null,
    t0: performance.now(),
    stats: { input: 0, output: 0, cost: 0, priced: false, requests: 0 },
    requests: [],
    marks: [],
    says: new Map(),
    ended: false,
    tool: null, // the tool call node a sub-agent sits in
  };
}

function showTotals(run, ended) {
  const s = run.stats;
  const parts = [];
  if (s.input || s.output) parts.push(`${fmtInt(s.input + s.output)} tokens (${fmtInt(s.input)} in · ${fmtInt(s.output)} out)`);
  if (s.priced) parts.push(`cost ${fmtCost(s.cost)}`);
  if (ended) parts.push(fmtDuration(performance.now() - run.t0));
  run.totals.textContent = parts.join(" · ");
}

function treeTop(stream, ev) {
  if (stream.top) return;
  state.runs += 1;
  const label = { prompt: "", resume: "resumed", answer: "tool answered" }[stream.kind] || "";
  const run = runNode(state.assistant, `#${state.runs}${label ? " " + label : ""}`);
  run.node.dataset.run = ev.runId || "";
  stream.top = run;
  // Older runs fold, so that the newest reads first; one that waited says where it goes on.
  for (const d of ui.tree.querySelectorAll(":scope > .node[data-kind=run] > details")) d.open = false;
  const before = ui.tree.querySelector(":scope > .node[data-kind=run]:last-of-type");
  if (before && before.dataset.state === "suspended" && stream.kind !== "prompt") {
    const note = before.querySelector(":scope > details > .head .note");
    if (note) note.textContent = `went on in #${state.runs}`;
  }
  ui.tree.append(run.node);
  treeFollow.follow();
}

// runOf returns the run an event belongs to: the sub-agent it names, or the top run.
function runOf(stream, sub) {
  if (!stream.top) treeTop(stream, {});
  return (sub && stream.runs.get(sub)) || stream.top;
}

function treeSay(stream, sub, messageId, delta) {
  const run = runOf(stream, sub);
  let say = run.says.get(messageId);
  if (!say) {
    const li = el("li", "say");
    const text = document.createTextNode("");
    li.append(el("span", "say-label", "says"), text);
    run.children.append(li);
    say = { li, text };
    run.says.set(messageId, say);
  }
  if (delta) say.text.appendData(delta);
  treeFollow.follow();
}

function treeTool(stream, sub, id, name, resumed) {
  const run = runOf(stream, sub);
  const li = el("li", "node");
  li.dataset.kind = "tool";
  li.dataset.state = "running";
  li.dataset.call = id;
  li.dataset.name = name;
  const details = el("details");
  const head = el("summary", "head");
  const preview = el("span", "preview");
  const meta = el("span", "meta");
  head.append(badge(), el("span", "label", name));
  if (resumed) head.append(el("span", "tag", "resumed"));
  head.append(preview, meta);
  const io = el("div", "io");
  const argsPre = el("pre", "args");
  const resultLabel = el("div", "io-label", "result");
  const resultPre = el("pre", "result");
  resultLabel.hidden = resultPre.hidden = true;
  io.append(el("div", "io-label", "arguments"), argsPre, resultLabel, resultPre);
  details.append(head, io);
  const children = el("ul", "children");
  li.append(details, children);
  run.children.append(li);
  const tool = { node: li, run, args: "", argsPre, preview, meta, resultLabel, resultPre, children, t0: performance.now(), earlier: null };
  stream.tools.set(toolKey(sub, id), tool);
  state.lastTool.set(id, tool);
  treeFollow.follow();
  return tool;
}

// findTool returns the tool node of a call in this request's run sub. A call made in an
// earlier request (one that waited for a person, or whose delegated run paused) goes on in
// this one: it gets a node here, marked resumed, linked to the earlier one.
function findTool(stream, sub, id) {
  const here = stream.tools.get(toolKey(sub, id));
  if (here) return here;
  const earlier = state.lastTool.get(id);
  if (!earlier) return null;
  const t = treeTool(stream, sub, id, earlier.node.dataset.name || "tool", true);
  t.args = earlier.args;
  t.argsPre.textContent = earlier.argsPre.textContent;
  t.preview.textContent = earlier.preview.textContent;
  t.earlier = earlier;
  return t;
}

function treeResult(stream, sub, id, text) {
  const t = findTool(stream, sub, id);
  for (let n = t; n; n = n.earlier) {
    n.resultPre.textContent = text;
    n.resultLabel.hidden = n.resultPre.hidden = false;
    setState(n.node, text.startsWith("error: ") ? "failed" : "done");
    const denied = text.startsWith("denied: ");
    n.node.classList.toggle("denied", denied);
    n.meta.textContent = denied ? "denied" : n === t && !n.earlier ? fmtDuration(performance.now() - n.t0) : "";
  }
  treeFollow.follow();
}

// treeAnswered gives a call of the page's tools the answer the person wrote, as its result.
function treeAnswered(id, text) {
  const t = state.lastTool.get(id);
  if (!t) return;
  t.resultPre.textContent = text;
  t.resultLabel.hidden = t.resultPre.hidden = false;
  setState(t.node, "done");
  t.meta.textContent = "answered";
}

// treeMarkWaiting marks the tool node of a call that waits for the person.
function treeMarkWaiting(id) {
  const t = state.lastTool.get(id);
  if (t && t.node.dataset.state !== "done" && t.node.dataset.state !== "failed") {
    setState(t.node, "waiting");
    t.meta.textContent = "waiting";
    t.t0 = performance.now();
  }
}

function treeSubagent(stream, ev) {
  const parentRun = (ev.parentSubagentRunId && stream.runs.get(ev.parentSubagentRunId)) || runOf(stream, "");
  const run = runNode(ev.name || "sub-agent", "");
  run.node.dataset.run = ev.subagentRunId;
  run.parent = parentRun;
  stream.runs.set(ev.subagentRunId, run);
  const tool = ev.parentToolCallId ? findTool(stream, ev.parentSubagentRunId || "", ev.parentToolCallId) : null;
  run.tool = tool;
  (tool ? tool.children : parentRun.children).append(run.node);
  for (let n = tool; n; n = n.earlier) {
    if (n.node.dataset.state !== "running") {
      setState(n.node, "running");
      n.meta.textContent = n === tool ? "" : "resumed below";
    }
  }
  treeFollow.follow();
}

function treeSubagentEnd(stream, id, s, ev) {
  const run = stream.runs.get(id);
  if (!run) return;
  run.ended = true;
  setState(run.node, s);
  showTotals(run, true);
  if (s === "failed" && ev.message) run.children.append(el("li", "run-error", ev.message));
  if (s === "suspended") {
    for (let n = run.tool; n; n = n.earlier) {
      if (n.node.dataset.state === "running") {
        setState(n.node, "suspended");
        n.meta.textContent = "suspended";
      }
    }
  }
  treeFollow.follow();
}

function treeCustom(stream, sub, name, v) {
  const run = runOf(stream, sub);
  switch (name) {
    case "cadre.request": {
      const li = el("li", "node");
      li.dataset.kind = "request";
      li.dataset.state = "running";
      if (v.model) li.dataset.model = v.model;
      const head = el("div", "head");
      const meta = el("span", "meta");
      head.append(badge(), el("span", "label", v.model || "model"));
      if (v.attempt > 1) head.append(el("span", "tag", `attempt ${v.attempt}`));
      head.append(meta);
      li.append(head);
      const marks = run.marks.splice(0);
      if (v.correction && !marks.some((m) => m.kind === "correction")) marks.push({ kind: "correction", text: v.correction });
      for (const m of marks) {
        li.classList.add(`has-${m.kind}`);
        li.dataset[m.kind] = m.detail || "yes";
        const line = el("div", `mark ${m.kind}`);
        line.append(el("span", "mark-kind", m.kind === "fallback" ? `fallback${m.detail ? " (" + m.detail + ")" : ""}` : "correction"), el("span", "mark-text", m.text));
        li.append(line);
      }
      run.children.append(li);
      run.requests.push({ node: li, meta, ended: false });
      break;
    }
    case "cadre.usage": {
      const req = run.requests.find((r) => !r.ended);
      const parts = [fmtDuration(v.durationMs)];
      if (v.inputTokens || v.outputTokens || !v.error) parts.push(`${fmtInt(v.inputTokens)} in · ${fmtInt(v.outputTokens)} out`);
      if (typeof v.cost === "number" && (v.cost > 0 || !v.error)) parts.push(`cost ${fmtCost(v.cost)}`);
      if (req) {
        req.ended = true;
        req.meta.textContent = parts.join(" · ");
        setState(req.node, v.error ? "failed" : "done");
        if (v.error) req.node.append(el("div", "run-error", v.error));
      }
      for (let r = run; r; r = r.parent) {
        r.stats.input += Number(v.inputTokens) || 0;
        r.stats.output += Number(v.outputTokens) || 0;
        if (typeof v.cost === "number") {
          r.stats.cost += v.cost;
          r.stats.priced = true;
        }
        showTotals(r, r.ended);
      }
      break;
    }
    case "cadre.fallback":
      run.marks.push({ kind: "fallback", detail: v.kind || "", text: `to ${v.model || "another model"}${v.error ? ": " + v.error : ""}` });
      break;
    case "cadre.correction":
      run.marks.push({ kind: "correction", text: v.reason || "" });
      break;
    default:
      break;
  }
  treeFollow.follow();
}

// treeEnd closes the top run with state s (and a note); what is still running in it failed
// or was stopped when s is failed.
function treeEnd(stream, s, note) {
  const run = stream.top;
  if (!run) return;
  run.ended = true;
  setState(run.node, s);
  showTotals(run, true);
  if (note && s === "failed") run.children.append(el("li", "run-error", note));
  else if (note) run.head.insertBefore(el("span", "tag note", note), run.totals);
  if (s === "failed") {
    for (const n of run.node.querySelectorAll(".node[data-state=running]")) setState(n, "failed");
  }
  treeFollow.follow();
}

function treeAbort(stream, text) {
  if (!stream.top || stream.ended) return;
  stream.ended = true;
  treeEnd(stream, "failed", text);
}

// ---------------------------------------------------------------- start

function wire() {
  ui.assistant.addEventListener("change", async () => {
    selectAssistant(ui.assistant.value);
    newChat();
    await loadChats();
  });
  ui.newChat.addEventListener("click", () => {
    newChat();
    ui.prompt.focus();
  });
  ui.send.addEventListener("click", sendPrompt);
  ui.stop.addEventListener("click", () => state.controller?.abort());
  ui.prompt.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      sendPrompt();
    }
  });
  const open = (li) => {
    if (li && !state.busy && li.dataset.thread) openChat(li.dataset.thread);
  };
  ui.chats.addEventListener("click", (ev) => open(ev.target.closest(".chat")));
  ui.chats.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      open(ev.target.closest(".chat"));
    }
  });
  ui.reports.addEventListener("click", (ev) => {
    const a = ev.target.closest(".report");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    openReport(a.dataset.name);
  });
  ui.reportsRefresh.addEventListener("click", () => loadReports());
  ui.backToChat.addEventListener("click", showChat);
  // The form never submits (the page's policy allows no form action): it only gives the
  // password field a form, as browsers expect.
  ui.tokenForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    saveToken();
  });
  ui.tokenClear.addEventListener("click", () => {
    ui.token.value = "";
    saveToken();
  });
}

// start loads the assistants and opens the chat the address names, or a new one; with keep
// (after signing in), a chat the page shows already stays as it is.
async function start(keep = false) {
  try {
    await loadAssistants();
  } catch (e) {
    fail(errorText(e));
    return;
  }
  if (state.token) ui.signin.open = false; // signed in: the field folds away
  if (state.assistants.length === 0) {
    fail("this console serves no assistant");
    return;
  }
  if (keep && state.threadId && state.messages.length > 0 && state.assistants.some((a) => a.name === state.assistant)) {
    selectAssistant(state.assistant);
    setStatus("idle", "idle");
    await loadChats();
    await loadReports();
    return;
  }
  const chat = new URLSearchParams(location.hash.slice(1)).get("chat") || "";
  const wanted = chat.includes("~") ? chat.slice(0, chat.indexOf("~")) : storage()?.getItem(ASSISTANT_KEY) || "";
  selectAssistant(wanted);
  setStatus("idle", "idle");
  if (chat && state.chatsEnabled) {
    await loadChats();
    if (!(await openChat(chat))) {
      // The chat the address names is gone: a new one, under the error that says so.
      const error = ui.status.textContent;
      newChat();
      fail(error);
    }
  } else {
    newChat();
    await loadChats();
  }
  await loadReports();
  ui.prompt.focus();
}

readToken();
wire();
start();
// A token pasted into the address of the open page comes as a change of its fragment.
window.addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).has("token")) {
    readToken();
    ui.signin.parentElement.classList.remove("attention");
    if (!state.busy) start(true);
  }
});
