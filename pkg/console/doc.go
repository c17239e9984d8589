// Package console serves a console for a program's assistants in the browser: pick an
// assistant, chat with it with the answer streamed, watch each run's tree grow — every run,
// model request and tool call with its duration, tokens and cost, arguments and results,
// delegated runs nested under the calls that made them, fallbacks and corrections marked —,
// approve or deny the calls that wait for a person, answer the client tools, reopen earlier
// chats, and open the reports evals wrote.
//
// [New] returns the console's http.Handler: a page of plain HTML, CSS and JavaScript embedded
// in the package (nothing is built at install time, and the page loads nothing from the
// network), and the API it calls, whose runs go through the AG-UI endpoint of package agui
// (one agui handler per assistant). Model and tool output is shown as text, never as HTML, and
// the page's Content-Security-Policy allows no inline script; eval reports are served in a
// sandbox of their own.
//
//	c := console.New(
//		console.WithAssistant(concierge),
//		console.WithAssistant(researcher),
//		console.WithStore(chat.NewMemory()),
//		console.WithReports(os.DirFS("reports")),
//	)
//	http.ListenAndServe("127.0.0.1:8080", c)
//
// # Security
//
// The console runs assistants at the program's cost, and approves their calls, for whoever
// reaches it. It serves loopback hosts only, and answers the pages of loopback origins only,
// unless WithAllowedHosts and WithAllowedOrigins say otherwise: a page of another site cannot
// reach it through DNS rebinding nor call its API. Beyond loopback, put its API behind a
// bearer-token check with WithAuth (mcpauth.Authorizer.Protect) and give WithIdentity: the
// page, which holds no data, loads without a token, and sends the person's token with each
// call of the API; it takes the token from the address's fragment (#token=…, which never
// reaches a server), or from a field in the page, and keeps it for the browser tab only
// (sessionStorage). docs/console.md says how a person gets one.
package console
