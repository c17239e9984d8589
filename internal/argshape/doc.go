// Package argshape decides the JSON shape of a tool's arguments for a Go type, for pkg/tool's
// Func and pkg/assistant's delegation and final_result tool alike, so that they agree.
//
// Tool APIs want a tool's arguments to be a JSON object. A Go type whose values encode as an
// object ([IsObjectType]) is the arguments object as it is; the value of any other is wrapped in
// an object of one property: {"input": I} for a tool's input ([Input]), {"output": O} for the
// answer given through final_result ([Output]).
package argshape
