package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/cadrehq/cadre/pkg/tool"
)

// tripArgs are arguments with a field of each kind a model can get wrong.
type tripArgs struct {
	City     string         `json:"city"`
	Days     int            `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Budget   *float64       `json:"budget,omitempty"`
	Stops    []string       `json:"stops,omitempty"`
	Extras   map[string]int `json:"extras,omitempty"`
	Return   *tripLeg       `json:"return,omitempty"`
	Flexible bool           `json:"flexible,omitempty"`
	Seats    uint8          `json:"seats,omitempty"`
}

type tripLeg struct {
	Date string `json:"date"`
	Hour int    `json:"hour"`
}

// wrappedInts is how a Func tool with an []int argument takes it.
type wrappedInts struct {
	Input []int `json:"input"`
}

// funcArgs are arguments as models write them, right and wrong: the seeds of FuzzFuncArgs.
var funcArgs = []string{
	`{"city":"Paris","days":2}`,
	`{"city":"Paris","days":3,"budget":1200.5,"stops":["Lyon","Dijon"],"extras":{"bags":2},"return":{"date":"2025-06-01","hour":9},"flexible":true,"seats":2}`,
	`{"input":[1,2,3]}`,
	`{"a":1,"b":-2}`,
	`{}`,
	``,
	`null`,
	`city=Paris`,
	`["Paris"]`,
	`{"city":5}`,
	`{"city":"Paris","days":2.0}`,
	`{"city":"Paris","seats":256}`,
	`{"city":"Paris","seats":-1}`,
	`{"city":"Paris","days":1e400}`,
	`{"city":"Paris","City":"Lyon"}`,
	`{"city":"Paris","city":"Lyon"}`,
	`{"city":"\ud800","stops":["\xff"]}`,
	`{"input":"two"}`,
	`{"input":[1,`,
	`{"return":null,"budget":null,"extras":null}`,
}

// FuzzFuncArgs calls Func tools — of a struct, a wrapped slice and a map — with arguments as a
// model may write them. Arguments that decode into I reach fn as exactly what encoding/json
// decodes them to, and the result is fn's answer; arguments that do not decode never reach fn,
// and the error wraps ErrInvalidArgs. No arguments make Call panic.
func FuzzFuncArgs(f *testing.F) {
	for _, a := range funcArgs {
		f.Add([]byte(a))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		checkFuncArgs(t, args, func(in tripArgs) tripArgs { return in })
		checkFuncArgs(t, args, func(in wrappedInts) []int { return in.Input })
		checkFuncArgs(t, args, func(in map[string]int) map[string]int { return in })
	})
}

// checkFuncArgs calls a Func tool taking what take returns with args: its fn returns what it
// receives, and W is how the tool takes it (I itself, or I wrapped as {"input": I}).
func checkFuncArgs[W, I any](t *testing.T, args []byte, take func(W) I) {
	t.Helper()
	var got I
	reached := false
	tl := tool.Func("echo", "", func(_ context.Context, in I) (I, error) {
		got, reached = in, true
		return in, nil
	})
	out, err := tl.Call(context.Background(), json.RawMessage(args))
	var w W
	if derr := json.Unmarshal(args, &w); derr != nil {
		if reached || !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("%T: arguments %q do not decode (%v): fn reached %v, error %v; want fn not reached, an error wrapping ErrInvalidArgs", got, args, derr, reached, err)
		}
		return
	}
	want := take(w)
	if !reached || err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: arguments %q: fn reached %v with %#v, error %v; want it reached with %#v", got, args, reached, got, err, want)
	}
	if b, err := json.Marshal(want); err != nil || out != string(b) {
		t.Errorf("%T: result %q, want %s (%v)", got, out, b, err)
	}
}
