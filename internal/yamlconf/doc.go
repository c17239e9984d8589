// Package yamlconf reads a configuration file written in YAML and checks it as it reads,
// so that one pass reports every mistake a person made, each with the file, the line and the
// key path, and what to write instead:
//
//	llm.yaml:12: models.fast.temprature: unknown key (known: provider, model, temperature, ...)
//
// It knows YAML and nothing of any file's keys: a [Reader] parses the document into yaml.v3
// nodes, and the caller walks them with the Reader's methods, which record an [Error] where a
// node is not what the caller asked for, and carry on. [Reader.Err] then returns what was
// recorded: in line order, without repeats, at most ten of them.
//
// What a Reader does for every file:
//
//   - mappings are read in file order, with duplicate keys reported and YAML 1.1 merge keys
//     (<<: *anchor, <<: [*a, *b]) applied: a key written in the mapping wins over a merged one,
//     and an earlier merged mapping over a later one ([Reader.Entries]);
//   - aliases are followed, and the work they can cause is bounded: a small file that expands
//     to too many nodes is one error, not a hang ([Reader.Resolve]);
//   - scalars have ${VAR}, ${VAR:-default} and $$ expanded from an environment lookup before
//     they are read as text, numbers, whole numbers, booleans, durations or URLs ([Expand],
//     [Reader.Text]); a variable that is unset may be deferred to the caller, which decides
//     whether it matters;
//   - errors quote the file's text, never a variable's value ([Value.Quoted]), so that a key
//     given in the environment cannot reach an error message.
//
// A Reader is for one document and one goroutine.
package yamlconf
