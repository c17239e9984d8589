// Package prompt writes the system prompt of an assistant's runs: its instructions — a
// text/template rendered with the run's vars, or text kept as it is when it has no template
// action — followed, as paragraphs, by the roster of the assistants it leads (Roster), what
// its tool sets write and the output's instructions.
//
// Which parts a run's prompt has, and when one is written once for every run, is the
// assistant's to decide; this package only writes them.
package prompt
