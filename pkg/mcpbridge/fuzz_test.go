package mcpbridge_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/server"
)

// rpcReply is a JSON-RPC response as a client reads it: a result or an error.
type rpcReply struct {
	Result *json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// handle sends s the request of method with params whose "arguments" are args, as a client
// would over any transport, and returns the response as the client reads it. Arguments that
// are not JSON make another request of it, or none, as they would on the wire.
func handle(t *testing.T, s *server.MCPServer, method, name string, args []byte) rpcReply {
	t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"name":"` + name + `","arguments":` + string(args) + `}}`
	resp := s.HandleMessage(testContext(t), json.RawMessage(msg))
	if resp == nil {
		t.Fatalf("%s: no response to %s", method, msg)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("%s: the response does not encode: %v", method, err)
	}
	var r rpcReply
	if err := json.Unmarshal(b, &r); err != nil || (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("%s: the response %s is neither a result nor an error (%v)", method, b, err)
	}
	return r
}

// FuzzCallTool calls served tools — one with an object of arguments, one with a wrapped
// string — with the arguments a client sends. Arguments that are JSON get a tool result, not a
// protocol error, unless mcp-go cannot read them. Arguments the tool's schema rejects never reach the tool and get an
// isError result; arguments that reach it are what encoding/json decodes them to. The server
// never panics, whatever the arguments, and a panic in the tool is an isError result.
func FuzzCallTool(f *testing.F) {
	for _, s := range []string{
		`{"city":"Oslo","days":3}`,
		`{"city":"Oslo"}`,
		`{"city":"Atlantis"}`,
		`{"city":"Boom"}`,
		`{"input":"hello"}`,
		`{"city":"Oslo","days":0}`,
		`{"city":"Oslo","days":2.0}`,
		`{"city":"Oslo","days":1e400}`,
		`{"city":42}`,
		`{"city":"Oslo","extra":true}`,
		`{"city":"Oslo","City":"Bergen"}`,
		`{"city":"Oslo","city":"Boom"}`,
		`{}`,
		`null`,
		`[]`,
		`"Oslo"`,
		`{"input":"\ud800"}`,
		`{"city":`,
		`1},"name":"echo","x":{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		forecastTl, echoTl := &servedTool{name: "forecast"}, &servedTool{name: "echo"}
		forecastTl.tool = tool.Func(forecastTl.name, "The weather forecast of a city.", func(ctx context.Context, in forecastIn) (forecast, error) {
			forecastTl.got = in
			return forecastFor(ctx, in)
		})
		forecastTl.decode = func(b []byte) (any, error) {
			var in forecastIn
			err := json.Unmarshal(b, &in)
			return in, err
		}
		forecastTl.fails = func(in any) bool { c := in.(forecastIn).City; return c == "Atlantis" || c == "Boom" }
		echoTl.tool = tool.Func(echoTl.name, "Says the input back.", func(_ context.Context, in string) (string, error) {
			echoTl.got = in
			return "echo: " + in, nil
		})
		echoTl.decode = func(b []byte) (any, error) {
			var w struct {
				Input string `json:"input"`
			}
			err := json.Unmarshal(b, &w)
			return w.Input, err
		}
		echoTl.fails = func(any) bool { return false }

		s := server.NewMCPServer("fuzz", "1.0.0")
		for _, tl := range []*servedTool{forecastTl, echoTl} {
			if err := mcpbridge.AddTool(s, tl.tool, mcpbridge.WithErrorHandler(func(context.Context, string, error) {})); err != nil {
				t.Fatal(err)
			}
			tl.check(t, s, args)
		}
	})
}

// servedTool is a tool served in FuzzCallTool, with what it got when it was called.
type servedTool struct {
	name   string
	tool   tool.Tool
	got    any                       // what the tool's function got; nil when it was not called
	decode func([]byte) (any, error) // what encoding/json decodes arguments to, for the function
	fails  func(any) bool            // whether the function fails (an error or a panic) on what it got
}

// check calls the tool with args and checks the response.
func (st *servedTool) check(t *testing.T, s *server.MCPServer, args []byte) {
	t.Helper()
	st.got = nil
	r := handle(t, s, "tools/call", st.name, args)
	if !json.Valid(args) {
		return // the request may be another one, or none: a response is all there is to check
	}
	if r.Error != nil {
		// mcp-go reads the arguments before the bridge does, into Go values: a number out of
		// float64's range is a request it cannot read.
		if json.Unmarshal(args, new(any)) == nil || st.got != nil {
			t.Errorf("%s(%s): protocol error %d %q; want a tool result", st.name, args, r.Error.Code, r.Error.Message)
		}
		return
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(*r.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s(%s): result %s: %v; want a tool result with content", st.name, args, *r.Result, err)
	}
	sent := args // as the bridge takes them: none, or null, are an empty object
	if trimmed := strings.TrimSpace(string(args)); trimmed == "" || trimmed == "null" {
		sent = []byte("{}")
	}
	compiled, err := schema.Compile(st.tool.Schema())
	if err != nil {
		t.Fatal(err)
	}
	valid := compiled.Validate(sent) == nil
	want, derr := st.decode(sent)
	switch {
	case !valid || derr != nil:
		if st.got != nil || !res.IsError {
			t.Errorf("%s(%s): valid %v, decodes %v: reached the tool with %#v, isError %v; want it not reached, an isError result", st.name, args, valid, derr == nil, st.got, res.IsError)
		}
	case st.got == nil || !reflect.DeepEqual(st.got, want):
		t.Errorf("%s(%s): the tool got %#v, want %#v", st.name, args, st.got, want)
	case res.IsError != st.fails(want):
		t.Errorf("%s(%s): isError %v (%q), want %v", st.name, args, res.IsError, res.Content[0].Text, st.fails(want))
	}
}

// FuzzGetPrompt gets a served prompt with the arguments a client sends: input and chat_id,
// or anything else. The agent runs exactly when the arguments are an input that is not blank,
// with a chat_id or not, and nothing else: with input as its prompt, in the chat named by
// chat_id and the caller's identity (in no chat without one). Any other arguments get a
// JSON-RPC error; so does a panic in the agent. The server never panics.
func FuzzGetPrompt(f *testing.F) {
	for _, s := range []string{
		`{"input":"bonjour"}`,
		`{"input":"bonjour","chat_id":"c1"}`,
		`{"input":"bonjour","chat_id":"   "}`,
		`{"input":"Boom"}`,
		`{"input":"  "}`,
		`{"chat_id":"c1"}`,
		`{"input":"bonjour","model":"x"}`,
		`{"input":"bonjour","chat_id":"a\u0000b"}`,
		`{"input":"bonjour","chat_id":"` + strings.Repeat("x", 257) + `"}`,
		`{"input":42}`,
		`{"input":"a","input":""}`,
		`{"Input":"bonjour"}`,
		`{}`,
		`null`,
		`["bonjour"]`,
		`{"input":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		var prompt *string
		var inChat chat.ID
		model := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
			p := lastUser(req)
			prompt, inChat = &p, chatOf(ctx)
			if p == "Boom" {
				panic("the model broke")
			}
			return llmtest.Text("You said: " + p)
		}).NoRecord()
		a := assistant.New[string]("replier", assistant.WithModel(model), assistant.WithStore(chat.NewMemory()))
		s := server.NewMCPServer("fuzz", "1.0.0")
		identity := func(context.Context) (string, string, error) { return "tenant", "user", nil }
		if err := mcpbridge.AddPrompt(s, a, mcpbridge.WithIdentity(identity), mcpbridge.WithErrorHandler(func(context.Context, string, error) {})); err != nil {
			t.Fatal(err)
		}
		r := handle(t, s, "prompts/get", "replier", args)
		if !json.Valid(args) {
			return // the request may be another one, or none: a response is all there is to check
		}
		var m map[string]string
		runs := json.Unmarshal(args, &m) == nil && strings.TrimSpace(m["input"]) != ""
		for k := range m {
			runs = runs && (k == "input" || k == "chat_id")
		}
		var want chat.ID
		if id := m["chat_id"]; strings.TrimSpace(id) != "" {
			want = chat.ID{Tenant: "tenant", User: "user", Chat: id}
			runs = runs && want.Valid() == nil
		}
		switch {
		case !runs:
			if prompt != nil || r.Error == nil {
				t.Errorf("get(%q): the agent ran (%v), or no error (%v); want an error, the agent not run", args, prompt != nil, r.Error == nil)
			}
		case prompt == nil || *prompt != m["input"] || inChat != want:
			t.Errorf("get(%s): the agent ran with %v in chat %+v; want %q in chat %+v", args, prompt, inChat, m["input"], want)
		case m["input"] == "Boom":
			if r.Error == nil {
				t.Errorf("get(%s): the agent panicked, and the get has no error", args)
			}
		case r.Error != nil:
			t.Errorf("get(%s): error %q; want the agent's answer", args, r.Error.Message)
		default:
			var res struct {
				Messages []struct {
					Role    string `json:"role"`
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(*r.Result, &res); err != nil || len(res.Messages) != 2 ||
				res.Messages[0].Content.Text != m["input"] || res.Messages[1].Content.Text != "You said: "+m["input"] {
				t.Errorf("get(%s): result %s (%v); want the input and the answer", args, *r.Result, err)
			}
		}
	})
}

// chatOf returns the chat ctx carries: the zero ID for none.
func chatOf(ctx context.Context) chat.ID {
	id, _ := chat.IDFrom(ctx)
	return id
}
