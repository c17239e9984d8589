// Package eval answers "does my assistant still work, and which model should it use?": it
// runs a [Dataset] of typed cases through an assistant (any [assistant.Runner]), grades each
// run with [Evaluator]s — from an exact match to a tool trajectory and an LLM judge —, repeats
// each case to tell a pass rate from luck, and reports what it found with what it cost.
//
// A case is an input of type I, an optional expected output of type O, and evaluators of its
// own beside the dataset's; a dataset is built in Go, or loaded from a YAML or JSON file with
// [Load], whose errors name the file, the line and the key, and whose keys an editor completes
// from [DatasetSchema]. [Evaluate] runs the cases concurrently (WithConcurrency), each
// WithRepeat times, under one budget for the whole eval (WithBudget: usage.Limits across every
// case and judge, unset fields no limit). Each run is observed through the assistant's seam: a
// middleware given with the run's options records every tool call of its tree, so a trajectory
// is read from the run itself. A run that fails is a case's result, graded as failed, never
// the end of the eval.
//
// An evaluator gives a [Grade]: a score in [0, 1] that passes from a threshold (0.5 unless
// the evaluator says otherwise), an assertion that passes or fails, or a label, each with a
// reason. A run passes when every score and assertion of it passes; a case's pass rate comes
// with its 95 % Wilson interval and pass@k.
//
// [Matrix] runs one dataset over several [Variant]s of the run — [Models] makes one for each
// model of llm.yaml — under one budget, each report naming its variant, to choose a model by
// its pass rate and cost. [WithTracerProvider] makes each run of a case a span, parent of the
// run's own (otelcadre's), and package evaltest runs an eval as a go test.
package eval
