// Package answer is how an assistant asks a model for an answer of its output type O, and how
// it reads the answer back. The answer is a JSON value that matches O's JSON Schema, written
// as text (prompted mode) or as the arguments of the final_result tool (tool mode): O itself
// when O encodes as a JSON object, {"output": O} otherwise (see package argshape), sent in the
// strict form where the provider takes it. A string O is answered in prose, and nothing is
// parsed.
//
// It writes everything the model is told about answers — final_result's definition, the
// output's instructions, the request for a correction, the last request at a limit — and the
// earlier turns few-shot examples make (Examples), so that the model sees answers given the
// way it is asked to give its own. Checking an answer against the assistant's validators, and
// keeping it, is the run's.
package answer
